import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import type { MqttClientInfo, MqttMessage } from '../../core/mqtt/types.ts';
import {
  closed,
  connect,
  deferred,
  nextMessage,
  refusalCode,
  startEmbedded,
  type TestBroker,
} from './broker-fixtures.ts';

let running: TestBroker | undefined;
const clients: MqttClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  await running?.broker.stop();
  running = undefined;
});

async function start(...args: Parameters<typeof startEmbedded>) {
  running = await startEmbedded(...args);
  return running;
}

async function client(url: string, opts: Parameters<typeof connect>[1] = {}) {
  const c = await connect(url, opts);
  clients.push(c);
  return c;
}

/** A plugin that knows one user: `bulb` / `s3cret-pass`, whose identity carries its site. */
function passwordHooks() {
  return {
    authenticate(_c: MqttClientInfo, username: string | undefined, password: Buffer | undefined) {
      if (username !== 'bulb') return 'pass' as const;
      return password?.toString() === 's3cret-pass'
        ? { allow: true as const, identity: { site: 'home' } }
        : { allow: false as const };
    },
  };
}

describe('embedded broker: authentication', () => {
  it('refuses a client a plugin denies with CONNACK 4 (bad user name or password)', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker.forOwner('auth').hooks(passwordHooks());
    expect(await refusalCode(url, { username: 'bulb', password: 'wrong' })).toBe(4);
    const ok = await client(url, { username: 'bulb', password: 's3cret-pass' });
    expect(ok.connected).toBe(true);
  });

  it('anonymous off: refuses a client without credentials with CONNACK 5 (not authorized)', async () => {
    const { broker, url } = await start({ allowAnonymous: false });
    broker.forOwner('auth').hooks(passwordHooks());
    expect(await refusalCode(url)).toBe(5);
    // Credentials no plugin recognises are "bad user name or password".
    expect(await refusalCode(url, { username: 'stranger', password: 'x' })).toBe(4);
    const ok = await client(url, { username: 'bulb', password: 's3cret-pass' });
    expect(ok.connected).toBe(true);
  });

  it('anonymous on: a client every plugin passes on connects and may publish', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker.forOwner('auth').hooks(passwordHooks());
    const got = deferred<string>();
    await broker.forOwner('p').subscribe('anon/t', (m) => got.resolve(m.payload.toString()));
    const anon = await client(url);
    await anon.publishAsync('anon/t', 'hi');
    expect(await got.promise).toBe('hi');
  });

  it('anonymous on: wrong or unknown credentials are refused with CONNACK 4, never let in as anonymous', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker.forOwner('auth').hooks(passwordHooks());
    // A user name no plugin knows, with or without a password.
    expect(await refusalCode(url, { username: 'stranger', password: 'x' })).toBe(4);
    expect(await refusalCode(url, { username: 'stranger' })).toBe(4);
    // A known user with a wrong password.
    expect(await refusalCode(url, { username: 'bulb', password: 'wrong' })).toBe(4);
    // No credentials at all: anonymous, as configured.
    const anon = await client(url);
    expect(anon.connected).toBe(true);
  });

  it('asks hooks in registration order; the first answer other than pass decides', async () => {
    const { broker, url } = await start({ allowAnonymous: false });
    const asked: string[] = [];
    broker.forOwner('first').hooks({
      authenticate: () => {
        asked.push('first');
        return 'pass';
      },
    });
    broker.forOwner('second').hooks({
      authenticate: async () => {
        asked.push('second');
        return { allow: false };
      },
    });
    broker.forOwner('third').hooks({
      authenticate: () => {
        asked.push('third');
        return { allow: true };
      },
    });
    expect(await refusalCode(url, { username: 'u', password: 'p' })).toBe(4);
    expect(asked).toEqual(['first', 'second']);
  });

  it('a throwing authenticator refuses the client with CONNACK 3 and is logged', async () => {
    const { broker, url, lines } = await start({ allowAnonymous: true });
    broker.forOwner('broken').hooks({
      authenticate: () => {
        throw new Error('db down');
      },
    });
    expect(await refusalCode(url, { username: 'u', password: 'p' })).toBe(3);
    expect(lines.join('')).toContain('mqtt authenticate hook threw');
  });

  it('records the identity returned by the authenticator for the ACL hooks', async () => {
    const { broker, url } = await start({ allowAnonymous: false });
    const seen = deferred<MqttClientInfo>();
    broker.forOwner('auth').hooks({
      ...passwordHooks(),
      authorizePublish: (c) => {
        seen.resolve(c);
        return 'pass';
      },
    });
    const c = await client(url, { username: 'bulb', password: 's3cret-pass', clientId: 'bulb-1' });
    await c.publishAsync('x', 'y');
    expect(await seen.promise).toEqual({ id: 'bulb-1', username: 'bulb', identity: { site: 'home' } });
  });

  it('disconnect() closes the clients a plugin picks by identity, and only those', async () => {
    const { broker, url } = await start({ allowAnonymous: false });
    const api = broker.forOwner('auth');
    api.hooks({
      authenticate: (_c, username) =>
        username ? { allow: true, identity: { holder: username } } : ({ allow: false } as const),
    });
    const revoked = await client(url, { username: 'revoked', clientId: 'c-revoked' });
    const kept = await client(url, { username: 'kept', clientId: 'c-kept' });
    const gone = closed(revoked);
    expect(api.disconnect((c) => c.identity?.holder === 'revoked')).toBe(1);
    await gone;
    // The kept client still gets what is published to it.
    await kept.subscribeAsync('still/here');
    const got = nextMessage(kept, 'still/here');
    await api.publish('still/here', 'yes');
    expect((await got).payload).toBe('yes');
    expect(api.disconnect(() => false)).toBe(0);
  });

  it('never writes a password to the log', async () => {
    const { broker, url, lines } = await start({ allowAnonymous: false });
    broker.forOwner('auth').hooks(passwordHooks());
    await refusalCode(url, { username: 'bulb', password: 'wrong-pass-XYZ' });
    await client(url, { username: 'bulb', password: 's3cret-pass' });
    const log = lines.join('');
    expect(log).toContain('mqtt client refused');
    expect(log).not.toContain('wrong-pass-XYZ');
    expect(log).not.toContain('s3cret-pass');
  });
});

describe('embedded broker: ACLs', () => {
  function aclHooks() {
    return {
      ...passwordHooks(),
      authorizePublish: (_c: MqttClientInfo, topic: string) =>
        topic.startsWith('secret/') ? 'deny' : 'pass',
      authorizeSubscribe: async (_c: MqttClientInfo, topic: string) =>
        topic.startsWith('secret/') ? ('deny' as const) : ('pass' as const),
    };
  }

  it('denies a publish: the connection is closed and nobody receives the message', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker.forOwner('acl').hooks(aclHooks());
    const received: MqttMessage[] = [];
    const marker = deferred<void>();
    await broker.forOwner('watch').subscribe('#', (m) => {
      if (m.topic === 'marker') marker.resolve();
      else received.push(m);
    });
    const c = await client(url);
    const gone = closed(c);
    c.publish('secret/door', 'open');
    await gone;
    await broker.forOwner('p').publish('marker', '');
    await marker.promise;
    expect(received.map((m) => m.topic)).toEqual([]);
  });

  it('drops a publish a hook answers drop: acknowledged, connection kept, delivered and retained nowhere', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker
      .forOwner('acl')
      .hooks({ authorizePublish: (_c, topic) => (topic.startsWith('announce/') ? 'drop' : 'pass') });
    const received: string[] = [];
    await broker.forOwner('watch').subscribe('#', (m) => received.push(m.topic));
    const c = await client(url);
    const spy = await client(url);
    const spied: string[] = [];
    spy.on('message', (t) => spied.push(t));
    await spy.subscribeAsync('#');
    await c.publishAsync('announce/me', 'config', { qos: 1, retain: true });
    await c.publishAsync('marker', '', { qos: 1 });
    await new Promise<void>((resolve) => {
      const check = () => (spied.includes('marker') ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(c.connected).toBe(true);
    expect(received).toEqual(['marker']);
    expect(spied).toEqual(['marker']);
    expect(await broker.forOwner('p').retained('#')).toEqual([]);
  });

  it('denies a subscription with SUBACK 0x80 and keeps the client connected', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    broker.forOwner('acl').hooks(aclHooks());
    const c = await client(url);
    // mqtt.js rejects when any return code is a failure; the SUBACK rides on the error.
    const err = await c
      .subscribeAsync(['secret/#', 'public/#'])
      .catch((e: { packet: { granted: number[] } }) => e);
    expect('packet' in err && err.packet.granted).toEqual([0x80, 0]); // MQTT 3.1.1 §3.9.3
    expect(c.connected).toBe(true);
    const got = nextMessage(c, 'public/a');
    await broker.forOwner('p').publish('secret/a', 'hidden');
    await broker.forOwner('p').publish('public/a', 'visible');
    expect((await got).payload).toBe('visible');
  });

  it('refuses client publishes to $SYS/ even when anonymous is allowed', async () => {
    const { url } = await start({ allowAnonymous: true });
    const c = await client(url);
    const gone = closed(c);
    c.publish('$SYS/fake', 'x');
    await gone;
  });

  it('asks sync and async ACL hooks in registration order until one decides', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    const asked: string[] = [];
    const hook = (name: string, answer: 'allow' | 'deny' | 'pass', async: boolean) => ({
      authorizeSubscribe: (_c: MqttClientInfo, topic: string) => {
        asked.push(`${name}:${topic}`);
        return async ? Promise.resolve(answer) : answer;
      },
    });
    broker.forOwner('a').hooks(hook('a', 'pass', false));
    broker.forOwner('b').hooks(hook('b', 'pass', true));
    broker.forOwner('c').hooks({
      authorizeSubscribe: (_c, topic) => {
        asked.push(`c:${topic}`);
        return topic === 'ok' ? 'allow' : 'deny';
      },
    });
    broker.forOwner('d').hooks(hook('d', 'allow', false));
    const c = await client(url);
    await c.subscribeAsync('ok');
    const err = await c.subscribeAsync('no').catch((e: { packet: { granted: number[] } }) => e);
    expect('packet' in err && err.packet.granted).toEqual([0x80]);
    expect(asked).toEqual(['a:ok', 'b:ok', 'c:ok', 'a:no', 'b:no', 'c:no']);
  });

  it('in-process publishes bypass the ACL hooks', async () => {
    const { broker, url } = await start({ allowAnonymous: true });
    let asked = 0;
    broker.forOwner('acl').hooks({
      authorizePublish: () => {
        asked++;
        return 'deny';
      },
    });
    const c = await client(url);
    await c.subscribeAsync('secret/#');
    const got = nextMessage(c, 'secret/x');
    await broker.forOwner('p').publish('secret/x', 'from the core');
    expect((await got).payload).toBe('from the core');
    expect(asked).toBe(0);
  });
});
