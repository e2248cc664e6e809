import type { AedesOptions, AedesPublishPacket, AuthenticateError, Client } from 'aedes';
import type { Logger } from 'pino';
import type { ClientState, HookChain, Verdict } from './access.ts';

type Handlers = Required<
  Pick<
    AedesOptions,
    'preConnect' | 'authenticate' | 'authorizePublish' | 'authorizeSubscribe' | 'authorizeForward'
  >
>;

/** Decides whether a message may join a client's outgoing queue (the slow-consumer policy, embedded.ts). */
export type QueueCheck = (client: Client, packet: AedesPublishPacket) => boolean;

const refuse = (returnCode: number, message: string) =>
  Object.assign(new Error(message), { returnCode }) as AuthenticateError;

/**
 * aedes' connect and ACL handlers, answered by the plugins' hook chain. `states` remembers what
 * authentication decided for each live client (identity, authenticated or not); `mayQueue` is asked
 * before every delivery.
 */
export function aedesHandlers(
  chain: HookChain,
  states: WeakMap<Client, ClientState>,
  log: Logger,
  mayQueue: QueueCheck,
  holderOf: (clientId: string) => ClientState | undefined,
): Handlers {
  // aedes replaces an empty client id by a generated one before authenticate() runs; remember it here.
  const emptyIdKeepingSession = new WeakSet<Client>();
  return {
    preConnect(client, packet, done) {
      if (packet.clientId === '' && packet.clean === false) emptyIdKeepingSession.add(client);
      done(null, true);
    },

    authenticate(client, username, password, done) {
      // [MQTT-3.1.3-8]: a zero-byte client id with CleanSession 0 gets CONNACK 2 (aedes 1.x accepts it).
      if (emptyIdKeepingSession.has(client)) {
        log.info({ returnCode: 2 }, 'mqtt client refused: empty client id without a clean session');
        return done(refuse(2, 'identifier rejected'), false);
      }
      chain.authenticate(client.id, username, password).then(
        (outcome) => {
          if (outcome.ok) {
            // [MQTT-3.1.4-2] lets a new connection take over a client id; not across owners, or any
            // client could knock another site's device off the broker by reusing its id.
            const holder = holderOf(client.id);
            const owner = holder?.info.identity?.sessionOwner;
            if (holder && owner !== undefined && owner !== outcome.state.info.identity?.sessionOwner) {
              log.info(
                { clientId: client.id, returnCode: 2 },
                'mqtt client refused: client id held by another owner',
              );
              return done(refuse(2, 'identifier rejected'), false);
            }
            states.set(client, outcome.state);
            log.debug(
              { clientId: client.id, authenticated: outcome.state.authenticated },
              'mqtt client accepted',
            );
            return done(null, true);
          }
          // Never log the password; the username can be a key too, so only whether one was given.
          log.info(
            { clientId: client.id, withUsername: username !== undefined, returnCode: outcome.returnCode },
            'mqtt client refused',
          );
          done(refuse(outcome.returnCode, 'mqtt connection refused'), false);
        },
        (err: unknown) => {
          log.error({ err, clientId: client.id }, 'mqtt authentication failed');
          done(refuse(3, 'mqtt authentication failed'), false);
        },
      );
    },

    authorizePublish(client, packet, done) {
      // Topics starting with `$` are reserved for the server (MQTT 3.1.1 §4.7.2); `$SYS/` is aedes' own.
      if (packet.topic.startsWith('$SYS/')) return done(new Error('$SYS topics are reserved for the broker'));
      // client is null only for a will of a client that is gone (aedes clears stale wills): nobody to ask.
      const state = client ? states.get(client) : undefined;
      if (!state) return done(new Error('mqtt publish from an unknown client'));
      settle(chain.authorize('authorizePublish', state, packet.topic), (allowed) => {
        if (allowed === 'drop') {
          log.info({ clientId: state.info.id, topic: packet.topic }, 'mqtt publish dropped');
          // aedes 1.x cannot acknowledge a PUBLISH without publishing it: send it where nobody listens
          // (`$` topics: no wildcard subscription matches them, and the ACLs refuse them to devices).
          packet.topic = DROPPED_TOPIC;
          packet.retain = false;
          return done(null);
        }
        if (allowed) return done(null);
        log.info({ clientId: state.info.id, topic: packet.topic }, 'mqtt publish denied');
        // MQTT 3.1.1 has no negative PUBACK; aedes closes the connection instead [MQTT-3.3.5-2].
        done(new Error(`publish to ${packet.topic} denied`));
      });
    },

    authorizeSubscribe(client, subscription, done) {
      const state = states.get(client);
      if (!state) return done(null, null);
      settle(chain.authorize('authorizeSubscribe', state, subscription.topic), (verdict) => {
        const allowed = verdict === true;
        if (!allowed)
          log.info({ clientId: state.info.id, topic: subscription.topic }, 'mqtt subscribe denied');
        // null makes aedes answer 0x80 (Failure) for this filter in the SUBACK (MQTT 3.1.1 §3.9.3).
        done(null, allowed ? subscription : null);
      });
    },

    authorizeForward(client, packet) {
      const state = states.get(client);
      if (state && chain.checksDeliveries && !chain.authorizeDelivery(state, packet.topic)) return null;
      return mayQueue(client, packet) ? packet : null;
    },
  };
}

/** Where a dropped PUBLISH goes (see `MqttTopicDecision`). */
export const DROPPED_TOPIC = '$hearth/dropped';

/** Calls `then` synchronously for a plain verdict, so the common path does not wait for a microtask. */
function settle(result: Verdict | Promise<Verdict>, then: (verdict: Verdict) => void): void {
  if (typeof result === 'boolean' || result === 'drop') then(result);
  else result.then(then, () => then(false));
}
