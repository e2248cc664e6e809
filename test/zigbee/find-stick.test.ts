import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findStick } from '../../drivers/zigbee/find-stick.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('finds a known Z-Stack stick under /dev/serial/by-id and ignores other serial devices', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'by-id-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0'), '');
  expect(await findStick(dir)).toBe(null);
  const sonoff = 'usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_4c004e2b8a3bed11b8f9c2f0a3f1a6c9-if00-port0';
  writeFileSync(join(dir, sonoff), '');
  expect(await findStick(dir)).toBe(join(dir, sonoff));
  expect(await findStick(join(dir, 'missing'))).toBe(null);
});
