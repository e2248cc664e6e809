import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHueDriver } from '../../drivers/hue/driver.ts';
import { PairingError, pairBridge } from '../../drivers/hue/pairing.ts';
import { makeBridgeCerts } from '../../scripts/simulators/hue-bridge/certs.ts';
import { RecordingSink } from '../drivers/conformance.ts';
import { SimulatedBridge } from './helpers.ts';

let bridge: SimulatedBridge | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await bridge?.stop();
  bridge = null;
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'paired',
    (e: unknown) => (e instanceof PairingError ? e.code : String(e)),
  );

describe('hue pairing', () => {
  it('waits for the link button, then returns a key that works; a root-verified bridge is not pinned', async () => {
    bridge = await SimulatedBridge.start();
    const b = bridge;
    let prompted = '';
    setTimeout(() => b.pressLinkButton(), 300);
    const paired = await pairBridge({
      host: b.host,
      port: b.port,
      roots: [b.certs.rootPem],
      pollMs: 100,
      timeoutMs: 5000,
      onWaiting: ({ bridgeId, pinned }) => {
        prompted = `${bridgeId} ${pinned}`;
      },
    });
    expect(prompted).toBe(`${b.bridgeId} false`);
    expect(paired).toMatchObject({
      bridgeId: b.bridgeId,
      pinnedCert: undefined,
      fingerprint256: b.certs.fingerprint256,
    });
    const sink = new RecordingSink();
    const d = createHueDriver({
      id: 'x',
      options: {
        host: b.host,
        port: b.port,
        bridgeId: paired.bridgeId,
        appKey: paired.appKey,
        roots: [b.certs.rootPem],
      },
      sink,
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    });
    await d.start();
    expect(d.connection().connected).toBe(true);
    await d.stop();
  });

  it('pins the certificate of a bridge no trusted root verifies, or refuses when pinning is off', async () => {
    bridge = await SimulatedBridge.start();
    bridge.pressLinkButton();
    const pinned = await pairBridge({
      host: bridge.host,
      port: bridge.port,
      roots: [makeBridgeCerts('001788fffe999999').rootPem],
    });
    expect(pinned.pinnedCert).toContain('BEGIN CERTIFICATE');
    expect(await codeOf(pairBridge({ host: bridge.host, port: bridge.port, pinUnverified: false }))).toBe(
      'untrusted',
    );
  });

  it('refuses a bridge whose certificate is not for the bridge id expected', async () => {
    bridge = await SimulatedBridge.start();
    bridge.pressLinkButton();
    expect(
      await codeOf(pairBridge({ host: bridge.host, port: bridge.port, bridgeId: '001788FFFE000001' })),
    ).toBe('untrusted');
  });

  it('gives up when nobody presses the link button', async () => {
    bridge = await SimulatedBridge.start();
    expect(
      await codeOf(pairBridge({ host: bridge.host, port: bridge.port, timeoutMs: 300, pollMs: 100 })),
    ).toBe('timeout');
  });

  /**
   * The bridge answers after 50 ms of (fake) time, as a real one takes a moment. The clock only moves while
   * everything waits on a timer (a request in flight is real I/O on loopback, waited for in real time), so
   * nothing depends on how fast this machine is.
   */
  async function pairOnFakeClock(pressAtMs: number): Promise<string> {
    bridge = await SimulatedBridge.start({ latencyMs: 50 });
    const b = bridge;
    let waiting = false;
    let pressed = false;
    let done = false;
    const result = codeOf(
      pairBridge({
        host: b.host,
        port: b.port,
        roots: [b.certs.rootPem],
        timeoutMs: 30_000,
        pollMs: 1000,
        // The certificate is checked on the real clock; the wait for the button runs on the fake one.
        onWaiting() {
          vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
          waiting = true;
          setTimeout(() => {
            pressed = true;
            b.pressLinkButton();
          }, pressAtMs);
        },
      }),
    ).finally(() => {
      done = true;
    });
    const realTurn = () => new Promise<void>((r) => setImmediate(r));
    while (!done) {
      // Our own press timer counts as one until it fired.
      const ours = pressed ? 0 : 1;
      while (!done && (!waiting || vi.getTimerCount() <= ours)) await realTurn();
      if (done) break;
      await vi.advanceTimersToNextTimerAsync();
    }
    return result;
  }

  it('pairs when the link button is pressed in the last second of the wait (a last poll at the deadline)', async () => {
    expect(await pairOnFakeClock(29_500)).toBe('paired');
  });

  it('a press after the wait is over does not pair', async () => {
    expect(await pairOnFakeClock(30_500)).toBe('timeout');
  });
});
