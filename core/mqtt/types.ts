/** Who is talking to the broker, as the core knows it. `identity` is what the authenticating plugin returned. */
export interface MqttClientInfo {
  id: string;
  username?: string;
  /**
   * Set by the plugin that accepted the client; other plugins read it to authorize topics. A string
   * `identity.sessionOwner` (e.g. `site:<id>`) guards the client id: while a client with an owner is
   * connected, a client of another owner (or anonymous) using the same id is refused with CONNACK 2
   * instead of taking over its session.
   */
  identity?: Record<string, unknown>;
}

/** `pass` lets the next plugin decide; when every plugin passes, `mqtt.allowAnonymous` decides. */
export type MqttAuthDecision =
  | { allow: true; identity?: Record<string, unknown> }
  | { allow: false }
  | 'pass';
/**
 * `drop` (publish only; a subscribe takes it as `deny`): the PUBLISH is acknowledged and reaches nobody,
 * for a device that must keep its connection although one of its messages is not welcome (MQTT 3.1.1 has
 * no negative PUBACK, and a refused PUBLISH closes the connection).
 */
export type MqttTopicDecision = 'allow' | 'deny' | 'drop' | 'pass';

export interface MqttAuthHooks {
  authenticate?(
    client: MqttClientInfo,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<MqttAuthDecision> | MqttAuthDecision;
  authorizePublish?(client: MqttClientInfo, topic: string): Promise<MqttTopicDecision> | MqttTopicDecision;
  authorizeSubscribe?(client: MqttClientInfo, topic: string): Promise<MqttTopicDecision> | MqttTopicDecision;
  /**
   * Asked for every message about to reach a client through a subscription it was granted (live and
   * retained): a wildcard granted once may still match topics that must not reach this client. Synchronous
   * and on the hot path; 'pass' everywhere delivers.
   */
  authorizeDelivery?(client: MqttClientInfo, topic: string): MqttTopicDecision;
}

export interface MqttListener {
  client: MqttClientInfo;
  filters: string[];
}

export interface MqttMessage {
  topic: string;
  payload: Buffer;
  retain: boolean;
}

export interface PublishOptions {
  qos?: 0 | 1;
  retain?: boolean;
}

export interface MqttApi {
  /** `embedded` (aedes in this process) or `external` (an mqtt.js client to `mqtt.external.url`). */
  readonly mode: 'embedded' | 'external';
  /**
   * Publishes in-process (embedded) or through the shared client (external). External QoS 1 resolves on
   * the broker's PUBACK: during an outage mqtt.js keeps the message and sends it after reconnecting, so the
   * promise waits that long; a caller answering an HTTP request bounds the wait itself. External QoS 0
   * fails at once while disconnected.
   */
  publish(topic: string, payload: string | Buffer, opts?: PublishOptions): Promise<void>;
  /** Subscribes in-process; removed when the plugin stops. Wildcards `+`/`#` work. */
  subscribe(filter: string, handler: (msg: MqttMessage) => void): Promise<() => Promise<void>>;
  /** Authentication/ACL hooks for the embedded broker (ignored with an external broker). */
  hooks(hooks: MqttAuthHooks): void;
  /** Called after every (re)connection to the external broker, and once at start for the embedded one. */
  onConnect(handler: () => void): void;
  /**
   * Embedded: closes the connections of the clients `match` picks, e.g. those that authenticated with a
   * credential revoked since (an ACL hook stops new publishes and subscriptions, not delivery on a
   * subscription already granted). Returns how many were closed. External: 0, the broker's own job.
   */
  disconnect(match: (client: MqttClientInfo) => boolean): number;
  /**
   * Embedded: the connected socket clients holding subscriptions that cover every topic `filter` can match
   * (for a topic name: that match it), with those subscriptions' filters; in-process subscribers are not
   * clients. For ACL hooks that must know whose devices listen on a shared topic (a group topic) before
   * letting a client publish or subscribe there; synchronous. External: [] (the broker's own job).
   */
  listeners(filter: string): MqttListener[];
  /**
   * Embedded: the retained messages whose topics match `filter` (`$` topics only for a filter starting
   * with `$`). Clear one by publishing an empty retained message to its topic. External: rejects (ask the
   * external broker).
   */
  retained(filter: string): Promise<MqttMessage[]>;
}

/** The core's broker service (embedded aedes or an external broker client). */
export interface BrokerService {
  readonly mode: 'embedded' | 'external';
  /** TCP port the embedded broker listens on (0 when external or disabled). */
  readonly port: number;
  /** Largest MQTT packet accepted (embedded); `/mqtt` WebSocket messages get the same limit. */
  readonly maxPacketSize: number;
  /** The API scoped to one plugin; `dispose()` removes its subscriptions and hooks. */
  forOwner(owner: string): MqttApi & { dispose(): Promise<void> };
  /** Hands an accepted WebSocket (path `/mqtt` on the main listener) to the broker. */
  handleWebSocket(socket: import('ws').WebSocket): void;
  stop(): Promise<void>;
}

export interface BrokerOptions {
  /** Embedded: TCP host/port (port 0 = ephemeral). */
  host: string;
  port: number;
  /** Embedded: `false` starts no TCP listener (MQTT over WebSocket and in-process still work). Default true. */
  enabled?: boolean;
  /**
   * Embedded: whether a client that presents no credentials and that every authenticate hook passes on may
   * connect (and then publish/subscribe). Presented credentials are never downgraded to anonymous.
   */
  allowAnonymous: boolean;
  /** Embedded: what one connection may cost (defaults in `DEFAULT_LIMITS`). */
  limits?: Partial<import('./connection-guard.ts').BrokerLimits>;
  /**
   * When set, the core connects to this broker instead of embedding aedes; hooks are then ignored (the
   * external broker's own authentication and ACLs apply). `caFile`: PEM file of the CA for `mqtts://`/`wss://`.
   */
  external: {
    url: string;
    username?: string;
    password?: string;
    rejectUnauthorized?: boolean;
    caFile?: string;
  } | null;
  /** A child logger (`mqtt`); passwords are never logged. */
  log: import('pino').Logger;
  /**
   * Embedded: CONNECTs wait for this before the authenticate hooks run. The hub passes its plugins' start:
   * a device reconnecting while Hearth starts would otherwise be refused for want of the plugin that knows
   * its credentials, and a CONNACK refusal stops many clients (mqtt.js among them) from retrying at all.
   */
  clientsAfter?: Promise<unknown>;
}
