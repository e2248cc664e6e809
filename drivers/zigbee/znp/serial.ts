/** The serial port transport, on `serialport` at 115200 8N1 (docs/zigbee.md#start-up). */
import type { Transport } from './transport.ts';

export async function openSerial(path: string, baudRate = 115_200): Promise<Transport> {
  // Loaded when a stick is opened: a hub without one does not carry serialport and its native binding.
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate, dataBits: 8, stopBits: 1, parity: 'none', autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const closeListeners: Array<(err?: Error) => void> = [];
  let closed = false;
  const gone = (err?: Error) => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l(err);
  };
  port.on('close', (err: Error | null) => gone(err ?? undefined));
  port.on('error', (err: Error) => gone(err));
  return {
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error('serial port closed'));
        port.write(bytes, (err) => {
          if (err) {
            gone(err);
            return reject(err);
          }
          port.drain((e) => (e ? reject(e) : resolve()));
        });
      }),
    onData: (listener) => port.on('data', listener),
    onClose: (listener) => closeListeners.push(listener),
    async pulseModemLines() {
      // A PTY has no modem lines ("Inappropriate ioctl"): the stick then has to answer without a reset.
      const set = (dtr: boolean, rts: boolean) =>
        new Promise<void>((resolve) => port.set({ dtr, rts }, () => resolve()));
      await set(false, false);
      await set(true, true);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
}
