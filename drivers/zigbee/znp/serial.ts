/** The serial port transport, on `serialport` at 115200 8N1 (docs/zigbee.md#start-up). */
import type { Transport } from './transport.ts';

export async function openSerial(path: string, baudRate = 115_200): Promise<Transport> {
  // Loaded when a stick is opened: a hub without one does not carry serialport and its native binding.
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate, dataBits: 8, stopBits: 1, parity: 'none', autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const closeListeners: Array<(err?: Error) => void> = [];
  /** Writes not settled yet: serialport queues a write or drain on a closed port until it opens again. */
  const writing = new Set<(err: Error) => void>();
  let closed = false;
  const settleWrites = () => {
    for (const reject of writing) reject(new Error('serial port closed'));
    writing.clear();
  };
  const gone = (err?: Error) => {
    if (closed) return;
    closed = true;
    settleWrites();
    for (const l of closeListeners) l(err);
  };
  port.on('close', (err: Error | null) => gone(err ?? undefined));
  port.on('error', (err: Error) => gone(err));
  return {
    // A write settles even when the port closes under it (its drain would wait for an `open` that never
    // comes, and whatever awaits the write with it).
    write: (bytes) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error('serial port closed'));
        const fail = (err: Error) => {
          writing.delete(fail);
          reject(err);
        };
        writing.add(fail);
        port.write(bytes, (err) => {
          if (err) {
            fail(err);
            return gone(err);
          }
          if (!writing.has(fail)) return;
          port.drain((e) => {
            writing.delete(fail);
            if (e) reject(e);
            else resolve();
          });
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
        settleWrites();
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
}
