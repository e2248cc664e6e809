/**
 * The transport under the driver (STYLE: driver → protocol → transport): the hub's own broker in
 * process, or an external broker over mqtt.js. Commands are QoS 0 and never retained.
 */
/** `retain`: the broker replayed a stored message (true) rather than passing on a live one. */
export type MessageHandler = (topic: string, payload: Buffer, retain: boolean) => void;

export interface MqttLink {
  readonly connected: boolean;
  /** Starts connecting; resolves without waiting for a broker that is down. */
  start(): Promise<void>;
  stop(): Promise<void>;
  publish(topic: string, payload: string): Promise<void>;
  /** Subscriptions survive reconnects (the link restores them). */
  subscribe(filter: string, handler: MessageHandler): Promise<() => Promise<void>>;
  /** Called on every connect and disconnect; `true` after each (re)connection, when a resync is due. */
  onStatus(listener: (connected: boolean) => void): void;
}
