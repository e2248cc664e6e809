/** Hand-built MQTT 3.1.1 packets for clients that misbehave on purpose (the abuse tests). */
import net from 'node:net';

/** Remaining Length, MQTT 3.1.1 §2.2.3: 7 bits per byte, at most 4 bytes. */
export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

const str = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
};

export function connect(clientId: string, username?: string, password?: string, keepAlive = 60): Buffer {
  let flags = 0x02; // clean session
  if (username !== undefined) flags |= 0x80;
  if (password !== undefined) flags |= 0x40;
  const ka = Buffer.alloc(2);
  ka.writeUInt16BE(keepAlive);
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, flags]),
    ka,
    str(clientId),
    ...(username !== undefined ? [str(username)] : []),
    ...(password !== undefined ? [str(password)] : []),
  ]);
  return Buffer.concat([Buffer.from([0x10]), varint(body.length), body]);
}

export function subscribe(id: number, topics: string[], qos = 1): Buffer {
  const pid = Buffer.alloc(2);
  pid.writeUInt16BE(id);
  const body = Buffer.concat([pid, ...topics.map((t) => Buffer.concat([str(t), Buffer.from([qos])]))]);
  return Buffer.concat([Buffer.from([0x82]), varint(body.length), body]);
}

export function publish(topic: string, payload: Buffer): Buffer {
  const body = Buffer.concat([str(topic), payload]);
  return Buffer.concat([Buffer.from([0x30]), varint(body.length), body]);
}

/** Malformed or hostile packets, each sent on its own connection. */
export function malformed(): Array<{ label: string; bytes: Buffer }> {
  const good = connect('m', 'u', 'p');
  return [
    { label: 'remaining length of 5 bytes', bytes: Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f]) },
    { label: 'reserved packet type 0', bytes: Buffer.from([0x00, 0x00]) },
    { label: 'reserved packet type 15', bytes: Buffer.from([0xf0, 0x00]) },
    { label: 'PUBLISH before CONNECT', bytes: publish('a/b', Buffer.from('x')) },
    { label: 'SUBSCRIBE before CONNECT', bytes: subscribe(1, ['#']) },
    {
      label: 'wrong protocol name',
      bytes: Buffer.concat([Buffer.from([0x10, 12]), str('MQXX'), Buffer.from([4, 2, 0, 60]), str('c')]),
    },
    {
      label: 'protocol level 9',
      bytes: Buffer.concat([Buffer.from([0x10, 12]), str('MQTT'), Buffer.from([9, 2, 0, 60]), str('c')]),
    },
    {
      label: 'reserved connect flag set',
      bytes: Buffer.concat([Buffer.from([0x10, 12]), str('MQTT'), Buffer.from([4, 3, 0, 60]), str('c')]),
    },
    {
      label: 'will flag without will topic',
      bytes: Buffer.concat([Buffer.from([0x10, 12]), str('MQTT'), Buffer.from([4, 6, 0, 60]), str('c')]),
    },
    {
      label: 'password without username',
      bytes: Buffer.concat([
        Buffer.from([0x10, 16]),
        str('MQTT'),
        Buffer.from([4, 0x42, 0, 60]),
        str('c'),
        str('pw'),
      ]),
    },
    {
      label: 'string length past the packet',
      bytes: Buffer.from([0x10, 0x06, 0x00, 0xff, 0x4d, 0x51, 0x54, 0x54]),
    },
    {
      label: 'invalid UTF-8 client id',
      bytes: Buffer.concat([
        Buffer.from([0x10, 14]),
        str('MQTT'),
        Buffer.from([4, 2, 0, 60, 0, 2, 0xc3, 0x28]),
      ]),
    },
    { label: 'client id with NUL', bytes: connect('a\u0000b', 'u', 'p') },
    { label: 'second CONNECT', bytes: Buffer.concat([good, good]) },
    { label: 'truncated CONNECT', bytes: good.subarray(0, 7) },
    {
      label: 'zero-length SUBSCRIBE after CONNECT',
      bytes: Buffer.concat([good, Buffer.from([0x82, 0x02, 0x00, 0x01])]),
    },
    { label: 'prototype names as ids', bytes: connect('__proto__', 'constructor', 'toString') },
  ];
}

/** Opens a raw socket and resolves once connected. */
export function rawSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when the socket closes, or after `ms` (then false). */
export function closedWithin(s: net.Socket, ms: number): Promise<boolean> {
  if (s.destroyed) return Promise.resolve(true);
  // Read (and drop) what the broker answers: an unread CONNACK would hold back the close behind it.
  s.resume();
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    s.once('close', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
