/**
 * MQTT 3.1.1 §1.5.3: strings are well-formed UTF-8 without U+0000, and a server that receives one that is
 * not MUST close the connection [MQTT-1.5.3-1, -2]. mqtt.js will not send such bytes, so the packets are
 * built by hand and sent over a raw TCP socket.
 */
import { once } from 'node:events';
import net from 'node:net';
import mqttPacket from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMqttString } from '../../core/mqtt/string-check.ts';
import { startEmbedded, type TestBroker } from './broker-fixtures.ts';

let b: TestBroker;
beforeAll(async () => {
  b = await startEmbedded({ allowAnonymous: true });
});
afterAll(() => b.broker.stop());

const str = (bytes: Buffer) => Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
const packet = (first: number, body: Buffer) => {
  const len: number[] = [];
  let n = body.length;
  do {
    len.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([first, ...len]), body]);
};
/** CONNECT (§3.1) with raw client id and, optionally, user name and will topic bytes. */
function connect(clientId: Buffer, opts: { username?: Buffer; willTopic?: Buffer } = {}): Buffer {
  const flags = 0x02 | (opts.willTopic ? 0x04 : 0) | (opts.username ? 0x80 : 0);
  return packet(
    0x10,
    Buffer.concat([
      str(Buffer.from('MQTT')),
      Buffer.from([4, flags, 0, 30]),
      str(clientId),
      ...(opts.willTopic ? [str(opts.willTopic), str(Buffer.from('bye'))] : []),
      ...(opts.username ? [str(opts.username)] : []),
    ]),
  );
}

/** What the broker does with `bytes`: the packets it answers until it closes the socket (or 1 s of quiet). */
async function answers(
  bytes: Buffer[],
  afterConnack: Buffer[] = [],
): Promise<{ closed: boolean; packets: mqttPacket.Packet[] }> {
  const socket = net.connect(b.broker.port, '127.0.0.1');
  await once(socket, 'connect');
  const parser = mqttPacket.parser();
  const packets: mqttPacket.Packet[] = [];
  parser.on('packet', (p) => packets.push(p));
  socket.on('data', (d) => parser.parse(d));
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  for (const chunk of bytes) socket.write(chunk);
  if (afterConnack.length > 0) {
    await new Promise<void>((resolve) => parser.once('packet', () => resolve()));
    for (const chunk of afterConnack) socket.write(chunk);
  }
  const quiet = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000));
  const result = await Promise.race([closed, quiet]);
  socket.destroy();
  return { closed: result, packets };
}

const invalid = [
  ['a lone continuation byte', Buffer.from([0x61, 0x80, 0x62])],
  ['0xff', Buffer.from([0x64, 0xff, 0xfe])],
  ['an encoded surrogate (U+D800)', Buffer.from([0xed, 0xa0, 0x80])],
  ['an overlong "/"', Buffer.from([0xc0, 0xaf])],
  ['U+0000', Buffer.from([0x61, 0x00, 0x62])],
  ['a truncated four-byte sequence', Buffer.from([0xf0, 0x90, 0x80, 0x41])],
] as const;

describe('a CONNECT whose client id is not valid UTF-8 or contains U+0000 gets CONNACK 0 (regression)', () => {
  it.each(invalid)(
    'closes the connection without a CONNACK for a client id with %s',
    async (_what, bytes) => {
      const got = await answers([connect(bytes)]);
      expect(got).toEqual({ closed: true, packets: [] });
    },
  );

  it('also for a user name or will topic, and when the CONNECT arrives in pieces', async () => {
    const bad = Buffer.from([0x61, 0xff]);
    expect(await answers([connect(Buffer.from('ok-1'), { username: bad })])).toEqual({
      closed: true,
      packets: [],
    });
    expect(await answers([connect(Buffer.from('ok-2'), { willTopic: bad })])).toEqual({
      closed: true,
      packets: [],
    });
    const whole = connect(Buffer.from([0x61, 0x62, 0x00]));
    const pieces = [...whole].map((byte) => Buffer.from([byte]));
    expect(await answers(pieces)).toEqual({ closed: true, packets: [] });
  });

  it('accepts well-formed UTF-8 that is not ASCII (and a will payload or password is binary)', async () => {
    const got = await answers([
      connect(Buffer.from('lampe-küche-💡'), { willTopic: Buffer.from('tele/küche/LWT') }),
    ]);
    expect(got.closed).toBe(false);
    expect(got.packets).toMatchObject([{ cmd: 'connack', returnCode: 0 }]);
  });

  it('closes the connection for a PUBLISH topic, a SUBSCRIBE or an UNSUBSCRIBE filter that is not a string', async () => {
    const hello = connect(Buffer.from('strings-ok'));
    const publish = packet(
      0x30,
      Buffer.concat([str(Buffer.from([0x61, 0x2f, 0xc3])), Buffer.from('payload \xff ok')]),
    );
    const subscribe = packet(
      0x82,
      Buffer.concat([Buffer.from([0, 1]), str(Buffer.from([0x61, 0x00])), Buffer.from([0])]),
    );
    const unsubscribe = packet(
      0xa2,
      Buffer.concat([Buffer.from([0, 2]), str(Buffer.from([0xed, 0xb0, 0x80]))]),
    );
    for (const bad of [publish, subscribe, unsubscribe]) {
      const got = await answers([hello], [bad]);
      expect(got.closed).toBe(true);
      expect(got.packets.map((p) => p.cmd)).toEqual(['connack']);
    }
    // A binary payload is no string: the connection stays.
    const fine = packet(0x30, Buffer.concat([str(Buffer.from('a/b')), Buffer.from([0xff, 0x00, 0xfe])]));
    expect((await answers([hello], [fine])).closed).toBe(false);
    expect(b.lines.some((l) => l.includes('mqtt malformed packet'))).toBe(true);
  });
});

describe('isMqttString', () => {
  it('is well-formed UTF-8 without U+0000', () => {
    expect(isMqttString(Buffer.from('küche/💡'))).toBe(true);
    expect(isMqttString(Buffer.alloc(0))).toBe(true);
    for (const [, bytes] of invalid) expect(isMqttString(bytes)).toBe(false);
  });
});
