/** The adapter's retry and recovery timing, on fake timers with an in-memory stick. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ZStackAdapter } from '../../drivers/zigbee/znp/adapter.ts';
import { decodeMt, type MtName, mtFrame } from '../../drivers/zigbee/znp/mt.ts';
import { FrameType, UnpiParser } from '../../drivers/zigbee/znp/unpi.ts';
import { FakeTransport } from './fake-transport.ts';

const DEST = { ieee: '0x000b57fffe000002', nwk: 0x1a02, endpoint: 1 };

/** Answers every SREQ with status 0 and each AF frame with the next confirm status of `confirms`. */
function stick(confirms: number[]) {
  const t = new FakeTransport();
  const seen: Array<{ name: MtName; at: number }> = [];
  const parser = new UnpiParser((f) => {
    const m = decodeMt(f);
    if (!m || f.type !== FrameType.SREQ) return;
    seen.push({ name: m.name, at: Date.now() });
    queueMicrotask(() => {
      if (m.name === 'sysPing') return t.feed(mtFrame('sysPing', { capabilities: 1 }, true));
      t.feed(mtFrame(m.name, { status: 0 }, true));
      const af = m.name === 'afDataRequest' || m.name === 'afDataRequestExt';
      const status = af ? (confirms.shift() ?? 0) : 0;
      if (af && status >= 0)
        t.feed(
          mtFrame('afDataConfirm', {
            status,
            endpoint: 1,
            transId: m.fields.transId as number,
          }),
        );
      if (m.name === 'zdoNwkAddrReq')
        t.feed(
          mtFrame('zdoNwkAddrRsp', { status: 0, ieee: DEST.ieee, nwkAddr: 0x2222, startIndex: 0, assoc: [] }),
        );
    });
  });
  t.onWrite = (b) => parser.push(b);
  return { t, seen };
}

describe('Z-Stack adapter timing', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits the backoff after a channel-access failure before sending again', async () => {
    const { t, seen } = stick([0xe1, 0x00]);
    const a = new ZStackAdapter(t, { retryBackoffMs: 2000 });
    const sent = a.send(DEST, 6, Buffer.from('110101', 'hex'));
    await vi.advanceTimersByTimeAsync(1999);
    expect(seen.filter((s) => s.name === 'afDataRequest')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await sent;
    const af = seen.filter((s) => s.name === 'afDataRequest');
    expect(af).toHaveLength(2);
    expect((af[1]?.at ?? 0) - (af[0]?.at ?? 0)).toBe(2000);
    expect(a.stats).toMatchObject({ sent: 1, retries: 1 });
  });

  it('a groupcast waits the backoff after a channel-access failure, and is not retried on other failures', async () => {
    const { t, seen } = stick([0xe1, 0x00, 0xe9]);
    const a = new ZStackAdapter(t, { retryBackoffMs: 2000 });
    const sent = a.sendGroup(7, 6, Buffer.from('110101', 'hex'));
    await vi.advanceTimersByTimeAsync(1999);
    expect(seen.filter((s) => s.name === 'afDataRequestExt')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await sent;
    const ext = seen.filter((s) => s.name === 'afDataRequestExt');
    expect(ext.map((s) => s.at - (ext[0]?.at ?? 0))).toEqual([0, 2000]);
    expect(a.stats).toMatchObject({ groupcasts: 1, retries: 1 });
    // MAC no-ack on a groupcast: no route discovery, no retry (members never acknowledge a groupcast).
    await expect(a.sendGroup(7, 6, Buffer.from('110100', 'hex'))).rejects.toThrow(/status 0xe9/);
    expect(seen.filter((s) => s.name === 'afDataRequestExt')).toHaveLength(3);
    expect(seen.some((s) => s.name === 'zdoExtRouteDisc')).toBe(false);
  });

  it('on no route: route discovery, a pause, a fresh network address, then the retry goes there', async () => {
    const { t, seen } = stick([0xcd, 0x00]);
    const a = new ZStackAdapter(t, { routeDiscoveryMs: 1000 });
    const sent = a.send(DEST, 6, Buffer.from('110101', 'hex'));
    await vi.advanceTimersByTimeAsync(1000);
    await sent;
    expect(seen.map((s) => s.name)).toEqual([
      'afDataRequest',
      'zdoExtRouteDisc',
      'zdoNwkAddrReq',
      'afDataRequest',
    ]);
    expect(a.nwkOf(DEST)).toBe(0x2222);
  });

  it('a confirm that never comes counts as expired: route recovery, then a delivery error after four attempts', async () => {
    const { t, seen } = stick([-1, -1, -1, -1]);
    const a = new ZStackAdapter(t, { confirmMs: 500, routeDiscoveryMs: 100 });
    const sent = a.send(DEST, 6, Buffer.from('110101', 'hex'));
    const failed = expect(sent).rejects.toThrow(/status 0xf0/);
    await vi.advanceTimersByTimeAsync(4 * 500 + 3 * 100);
    await failed;
    expect(seen.filter((s) => s.name === 'afDataRequest')).toHaveLength(4);
    expect(seen.filter((s) => s.name === 'zdoExtRouteDisc')).toHaveLength(3);
  });

  it('a stick that never answers fails the send after the SREQ timeout', async () => {
    const { t, seen } = stick([]);
    t.onWrite = null; // a stick that accepts frames but never answers
    const a = new ZStackAdapter(t, { confirmMs: 500 });
    const sent = a.send(DEST, 6, Buffer.from('110101', 'hex'));
    const failed = expect(sent).rejects.toThrow(/afDataRequest: no answer within 6000 ms/);
    await vi.advanceTimersByTimeAsync(6000);
    await failed;
    expect(seen).toEqual([]);
  });

  it('pings, then sends the bootloader-skip byte and pings again after the wait', async () => {
    const t = new FakeTransport();
    let answering = false;
    const parser = new UnpiParser((f) => {
      if (answering && decodeMt(f)?.name === 'sysPing')
        queueMicrotask(() => t.feed(mtFrame('sysPing', { capabilities: 1 }, true)));
    });
    t.onWrite = (b) => {
      if (b.length === 1 && b[0] === 0xef) answering = true;
      else parser.push(b);
    };
    const a = new ZStackAdapter(t, { pingMs: 250, bootloaderMs: 1000 });
    const up = a.ping();
    await vi.advanceTimersByTimeAsync(250);
    expect(t.written.at(-1)?.toString('hex')).toBe('ef');
    await vi.advanceTimersByTimeAsync(1000);
    await up;
    expect(t.written.map((w) => w.toString('hex'))).toEqual(['fe00210120', 'ef', 'fe00210120']);
  });
});
