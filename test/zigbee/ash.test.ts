/**
 * ASH at the byte level: the documented frames, stuffing, CRC and randomisation; then a host and an NCP
 * session joined by an in-memory line that can lose or corrupt frames, on fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AshError, AshSession } from '../../drivers/zigbee/ezsp/ash.ts';
import {
  type AshFrame,
  AshParser,
  crcCcitt,
  decodeAshBody,
  encodeAsh,
  frameBody,
  ResetCode,
  randomise,
  stuff,
} from '../../drivers/zigbee/ezsp/ash-frame.ts';
import type { Transport } from '../../drivers/zigbee/znp/transport.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

describe('ASH frames', () => {
  it('encodes RST, RSTACK, ACK and NAK as the documented bytes', () => {
    expect(encodeAsh({ type: 'rst' })).toEqual(hex('c0 38bc 7e'));
    expect(encodeAsh({ type: 'rstack', version: 2, code: ResetCode.SOFTWARE })).toEqual(
      hex('c1 020b 0a52 7e'),
    );
    expect(encodeAsh({ type: 'ack', ackNum: 1, notReady: false })).toEqual(hex('81 6059 7e'));
    expect(encodeAsh({ type: 'nak', ackNum: 6, notReady: false })).toEqual(hex('a6 34dc 7e'));
  });

  it('computes CRC-CCITT with initial value 0xFFFF', () => {
    expect(crcCcitt(Buffer.from('123456789'))).toBe(0x29b1);
  });

  it('randomises DATA with the LFSR sequence 42 21 A8 54 2A …, and the same XOR undoes it', () => {
    expect(randomise(Buffer.alloc(5))).toEqual(hex('4221a8542a'));
    const data = Buffer.from('an EZSP frame');
    expect(randomise(randomise(data))).toEqual(data);
  });

  it('encodes a DATA frame: control frmNum/reTx/ackNum, randomised data, CRC, and decodes it back', () => {
    const f: AshFrame = { type: 'data', frmNum: 2, reTx: true, ackNum: 5, data: hex('00000004') };
    const body = frameBody(f);
    expect(body[0]).toBe(0x2d);
    expect(body.subarray(1, 5)).toEqual(hex('4221a850'));
    expect(decodeAshBody(body)).toEqual(f);
  });

  it('escapes the reserved bytes 7E 7D 11 13 18 1A as 7D, byte ^ 0x20', () => {
    expect(stuff(hex('7e 7d 11 13 18 1a 7f'))).toEqual(hex('7d5e 7d5d 7d31 7d33 7d38 7d3a 7f'));
  });

  it('parses frames split byte by byte, merged, and with reserved bytes stuffed inside', () => {
    const frames: AshFrame[] = [];
    const p = new AshParser((f) => frames.push(f));
    const data: AshFrame = { type: 'data', frmNum: 0, reTx: false, ackNum: 0, data: hex('427e7d1113181a') };
    const bytes = Buffer.concat([encodeAsh(data), encodeAsh({ type: 'ack', ackNum: 3, notReady: false })]);
    for (const b of bytes) p.push(Buffer.of(b));
    expect(frames).toEqual([data, { type: 'ack', ackNum: 3, notReady: false }]);
  });

  it('drops a frame with a bad CRC or a bad escape and reports it; CANCEL and SUBSTITUTE discard the frame in progress', () => {
    const frames: AshFrame[] = [];
    let bad = 0;
    const p = new AshParser(
      (f) => frames.push(f),
      () => bad++,
    );
    const ack = encodeAsh({ type: 'ack', ackNum: 1, notReady: false });
    const corrupt = Buffer.from(ack);
    corrupt[1] = (corrupt[1] as number) ^ 0x01;
    p.push(corrupt);
    p.push(hex('81 7d ab 59 7e'));
    p.push(Buffer.concat([hex('81 60'), hex('1a'), ack]));
    p.push(Buffer.concat([hex('81 18 60 59 7e'), ack]));
    expect(bad).toBe(2);
    expect(frames).toHaveLength(2);
    expect(p.stats.cancelled).toBe(2);
  });
});

/** Two ends of a line; `cut` decides per frame written whether it is lost, `mangle` may corrupt it. */
function line() {
  type Side = Transport & { data: Array<(b: Buffer) => void>; peer?: Side };
  const written: Array<{ from: 'host' | 'ncp'; bytes: Buffer }> = [];
  const ctl = {
    drop: (_from: 'host' | 'ncp', _bytes: Buffer) => false,
    mangle: (_from: 'host' | 'ncp', bytes: Buffer) => bytes,
  };
  const side = (name: 'host' | 'ncp'): Side => {
    const s: Side = {
      data: [],
      async write(bytes) {
        written.push({ from: name, bytes });
        if (ctl.drop(name, bytes)) return;
        const out = ctl.mangle(name, bytes);
        queueMicrotask(() => {
          for (const l of s.peer?.data ?? []) l(out);
        });
      },
      onData(l) {
        s.data.push(l);
      },
      onClose() {},
      async close() {},
    };
    return s;
  };
  const a = side('host');
  const b = side('ncp');
  a.peer = b;
  b.peer = a;
  return { host: a, ncp: b, ctl, written };
}

const framesFrom = (written: Array<{ from: string; bytes: Buffer }>, from: string) => {
  const out: AshFrame[] = [];
  const p = new AshParser((f) => out.push(f));
  for (const w of written) if (w.from === from) p.push(w.bytes);
  return out;
};

describe('ASH session', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  async function connected(timings = {}) {
    const l = line();
    const host = new AshSession(l.host, 'host', timings);
    const ncp = new AshSession(l.ncp, 'ncp', timings);
    const got = { host: [] as Buffer[], ncp: [] as Buffer[] };
    host.onData((d) => got.host.push(d));
    ncp.onData((d) => got.ncp.push(d));
    const code = host.reset();
    await vi.advanceTimersByTimeAsync(1);
    expect(await code).toBe(ResetCode.SOFTWARE);
    return { ...l, host, ncp, got };
  }

  it('resets with CANCEL + RST and takes the RSTACK code; fails after resetMs without one', async () => {
    const { written } = await connected();
    expect(written[0]?.bytes).toEqual(hex('1a c0 38bc 7e'));
    const l = line();
    l.ctl.drop = () => true;
    const host = new AshSession(l.host, 'host', { resetMs: 2500 });
    const r = host.reset();
    r.catch(() => {});
    await vi.advanceTimersByTimeAsync(2499);
    expect(host.connected).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(r).rejects.toBeInstanceOf(AshError);
  });

  it('numbers DATA frames 0..7 and around, each acknowledged, delivered once and in order both ways', async () => {
    const { host, ncp, got, written } = await connected();
    for (let i = 0; i < 10; i++) {
      const sent = host.send(Buffer.of(i));
      const back = ncp.send(Buffer.of(0x80 | i));
      await vi.advanceTimersByTimeAsync(1);
      await sent;
      await back;
    }
    expect(got.ncp.map((b) => b[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(got.host.map((b) => b[0])).toEqual([0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89]);
    const nums = framesFrom(written, 'host').flatMap((f) => (f.type === 'data' ? [f.frmNum] : []));
    expect(nums).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
  });

  it('keeps at most `window` frames unacknowledged', async () => {
    const { host, ctl, written } = await connected({ window: 3 });
    ctl.drop = (from, bytes) => from === 'ncp' && decodeAshBody(bytes.subarray(0, -1))?.type === 'ack';
    for (let i = 0; i < 5; i++) host.send(Buffer.of(i)).catch(() => {});
    await vi.advanceTimersByTimeAsync(1);
    expect(framesFrom(written, 'host').filter((f) => f.type === 'data')).toHaveLength(3);
  });

  it('a lost ACK: the frame is sent again with reTx after t_rx_ack, acknowledged, and not delivered twice', async () => {
    const { host, ncp, got, written } = await connected({ ackMs: 1600 });
    ncp.faults.dropAcks = 1;
    const sent = host.send(Buffer.from('hello'));
    let done = false;
    void sent.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1599);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    await sent;
    const data = framesFrom(written, 'host').filter((f) => f.type === 'data');
    expect(data.map((f) => f.type === 'data' && f.reTx)).toEqual([false, true]);
    expect(got.ncp).toEqual([Buffer.from('hello')]);
    expect(host.stats.timeouts).toBe(1);
  });

  it('a lost DATA frame: retransmitted after the timeout, which doubles while nothing comes back', async () => {
    const { host, ctl, got } = await connected({ ackMs: 1000, maxAckMs: 3200 });
    let lose = 2;
    ctl.drop = (from, bytes) => from === 'host' && bytes.length > 5 && lose-- > 0;
    const sent = host.send(Buffer.from('late'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(host.ackTimeoutMs).toBe(2000);
    await vi.advanceTimersByTimeAsync(2000);
    await vi.advanceTimersByTimeAsync(1);
    await sent;
    expect(got.ncp).toEqual([Buffer.from('late')]);
    // Acknowledged: t_rx_ack comes down again (7/8 of it plus half the measured time), within its bounds.
    expect(host.ackTimeoutMs).toBeLessThan(4000);
  });

  it('a corrupted frame is answered with a NAK and the sender retransmits at once', async () => {
    const { host, ncp, ctl, got, written } = await connected({ ackMs: 1600 });
    let corrupt = 1;
    ctl.mangle = (from, bytes) => {
      if (from !== 'host' || bytes.length < 6 || corrupt-- <= 0) return bytes;
      const b = Buffer.from(bytes);
      b[2] = (b[2] as number) ^ 0x40;
      return b;
    };
    const sent = host.send(Buffer.from('bits'));
    await vi.advanceTimersByTimeAsync(1);
    await sent;
    expect(ncp.stats.naksSent).toBe(1);
    expect(host.stats.naksReceived).toBe(1);
    expect(framesFrom(written, 'ncp').some((f) => f.type === 'nak')).toBe(true);
    expect(got.ncp).toEqual([Buffer.from('bits')]);
  });

  it('a NAK for a good frame (the NCP had no room) makes the host send it again', async () => {
    const { host, ncp, got } = await connected();
    ncp.faults.nakData = 1;
    const sent = host.send(Buffer.from('again'));
    await vi.advanceTimersByTimeAsync(1);
    await sent;
    expect(got.ncp).toEqual([Buffer.from('again')]);
    expect(host.stats.retransmitted).toBe(1);
  });

  it('after maxTimeouts timeouts in a row the link has failed: sends reject, the reset listener hears it', async () => {
    const { host, ctl } = await connected({ ackMs: 400, maxAckMs: 800, maxTimeouts: 5 });
    ctl.drop = (from) => from === 'host';
    const codes: number[] = [];
    host.onReset((c) => codes.push(c));
    const sent = host.send(Buffer.from('void'));
    sent.catch(() => {});
    await vi.advanceTimersByTimeAsync(400 + 800 * 4);
    await expect(sent).rejects.toBeInstanceOf(AshError);
    expect(codes).toEqual([ResetCode.EXCEEDED_ACK_TIMEOUTS]);
    expect(host.connected).toBe(false);
  });

  it('an RSTACK the host did not ask for (the NCP reset mid-session) fails what is in flight and is reported', async () => {
    const { host, ncp, ctl } = await connected();
    ctl.drop = (from) => from === 'host';
    const codes: number[] = [];
    host.onReset((c) => codes.push(c));
    const sent = host.send(Buffer.from('lost'));
    sent.catch(() => {});
    ncp.announceReset(ResetCode.WATCHDOG);
    await vi.advanceTimersByTimeAsync(1);
    await expect(sent).rejects.toThrow(/reset/);
    expect(codes).toEqual([ResetCode.WATCHDOG]);
  });
});
