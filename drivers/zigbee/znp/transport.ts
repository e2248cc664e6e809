/** A byte link to the stick: a serial port in production, anything duplex in tests. */
export interface Transport {
  write(bytes: Buffer): Promise<void>;
  onData(listener: (chunk: Buffer) => void): void;
  /** Called once when the link is gone (closed, unplugged, a failed write). */
  onClose(listener: (err?: Error) => void): void;
  /** Toggles DTR/RTS to reset a stick into its application; links without modem lines ignore it. */
  pulseModemLines?(): Promise<void>;
  close(): Promise<void>;
}
