/**
 * The serial transport on a real PTY (a socat pair): a write must settle when the port closes under it.
 * serialport queues a write's drain on a port that is not open until it opens again, which a closed port
 * never does; a start awaiting that write (the bootloader-skip byte, SYS_RESET_REQ) then never ended.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openSerial } from '../../drivers/zigbee/znp/serial.ts';
import { type PtyPair, startPtyPair } from '../../scripts/simulators/znp-coordinator/pty.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function pair(): Promise<PtyPair> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-serial-'));
  const p = await startPtyPair(dir);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => p.stop());
  return p;
}

it('a write in flight when the port is closed settles by the time close() does (it used to wait forever for its drain)', async () => {
  const p = await pair();
  const t = await openSerial(p.stickPath);
  let settled = '';
  const w = t.write(Buffer.from('fe0021010020', 'hex')).then(
    () => {
      settled = 'written';
    },
    () => {
      settled = 'failed';
    },
  );
  await t.close();
  await Promise.resolve();
  expect(settled).not.toBe('');
  await w;
  await expect(t.write(Buffer.of(0xef))).rejects.toThrow(/closed/);
});
