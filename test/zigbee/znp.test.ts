import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mtFrame } from '../../drivers/zigbee/znp/mt.ts';
import { Znp, ZnpClosedError, ZnpStatusError, ZnpTimeoutError } from '../../drivers/zigbee/znp/znp.ts';
import { FakeTransport } from './fake-transport.ts';

describe('ZNP request layer', () => {
  let t: FakeTransport;
  let znp: Znp;
  beforeEach(() => {
    vi.useFakeTimers();
    t = new FakeTransport();
    znp = new Znp(t);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps one SREQ in flight: the second is written only after the first is answered', async () => {
    const a = znp.request('sysPing');
    const b = znp.request('sysVersion');
    await vi.advanceTimersByTimeAsync(0);
    expect(t.written.map((w) => w.toString('hex'))).toEqual(['fe00210120']);
    t.feed(mtFrame('sysPing', { capabilities: 0x0659 }, true));
    await expect(a).resolves.toEqual({ capabilities: 0x0659 });
    await vi.advanceTimersByTimeAsync(0);
    expect(t.written.map((w) => w.toString('hex'))).toEqual(['fe00210120', 'fe00210223']);
    t.feed(mtFrame('sysVersion', { transportRev: 2, product: 1, major: 2, minor: 7, maint: 1 }, true));
    await expect(b).resolves.toMatchObject({ major: 2, minor: 7 });
  });

  it('fails an unanswered SREQ after its timeout and moves on to the next', async () => {
    const a = znp.request('sysPing', {}, 250);
    const b = znp.request('sysVersion');
    const failed = expect(a).rejects.toBeInstanceOf(ZnpTimeoutError);
    await vi.advanceTimersByTimeAsync(249);
    expect(t.written).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    expect(t.written).toHaveLength(2);
    // The late SRSP of the timed-out ping does not answer the version request.
    t.feed(mtFrame('sysPing', { capabilities: 1 }, true));
    t.feed(mtFrame('sysVersion', { transportRev: 2, product: 1, major: 2, minor: 7, maint: 1 }, true));
    await expect(b).resolves.toMatchObject({ product: 1 });
  });

  it('call() turns a non-zero status into a ZnpStatusError', async () => {
    const p = znp.call('zdoStartupFromApp', { startDelay: 100 });
    t.feed(mtFrame('zdoStartupFromApp', { status: 0xc2 }, true));
    await expect(p).rejects.toEqual(new ZnpStatusError('zdoStartupFromApp', 0xc2));
  });

  it('AREQ waiters take their match, time out, and every AREQ reaches the listeners', async () => {
    const seen: string[] = [];
    znp.onAreq((m) => seen.push(m.name));
    const confirm = znp.waitFor('afDataConfirm', (f) => f.transId === 5);
    const never = znp.waitFor('zdoStateChangeInd', (f) => f.state === 9, 1000);
    t.feed(mtFrame('afDataConfirm', { status: 0, endpoint: 1, transId: 4 }));
    t.feed(mtFrame('afDataConfirm', { status: 0, endpoint: 1, transId: 5 }));
    await expect(confirm.promise).resolves.toMatchObject({ transId: 5 });
    const timedOut = expect(never.promise).rejects.toBeInstanceOf(ZnpTimeoutError);
    await vi.advanceTimersByTimeAsync(1000);
    await timedOut;
    expect(seen).toEqual(['afDataConfirm', 'afDataConfirm']);
  });

  it('a closed link fails the request in flight, the queue and the waiters, and refuses new ones', async () => {
    const a = znp.request('sysPing');
    const b = znp.request('sysVersion');
    const w = znp.waitFor('afDataConfirm');
    t.drop();
    await expect(a).rejects.toBeInstanceOf(ZnpClosedError);
    await expect(b).rejects.toBeInstanceOf(ZnpClosedError);
    await expect(w.promise).rejects.toBeInstanceOf(ZnpClosedError);
    await expect(znp.request('sysPing')).rejects.toBeInstanceOf(ZnpClosedError);
  });

  it('counts frames it cannot decode instead of throwing', () => {
    t.feed(Buffer.from('fe01448000c5', 'hex')); // AF_DATA_CONFIRM with one byte of three
    expect(znp.unknownFrames).toBe(1);
  });
});
