import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findStick } from '../../drivers/zigbee/find-stick.ts';
import { kindFromName } from '../../drivers/zigbee/probe.ts';

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

it('finds a Silicon Labs stick too, and tells the kind a by-id name suggests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'by-id-'));
  dirs.push(dir);
  const zbt = 'usb-Nabu_Casa_SkyConnect_v1.0_3c6b1f8a2e4ad211a9f3c6f1a4c0b7d2-if00-port0';
  writeFileSync(join(dir, zbt), '');
  expect(await findStick(dir)).toBe(join(dir, zbt));
  expect(kindFromName(zbt)).toBe('ezsp');
  expect(kindFromName('usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_V2_20231215-if00')).toBe('ezsp');
  expect(kindFromName('usb-Itead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_V2_ZBDongle-E-if00')).toBe('ezsp');
  expect(kindFromName('usb-SMLIGHT_SLZB-06M_abc-if00-port0')).toBe('ezsp');
  expect(kindFromName('usb-SMLIGHT_SLZB-06_abc-if00-port0')).toBe('znp');
  expect(kindFromName('usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_4c00-if00-port0')).toBe('znp');
  expect(kindFromName('usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0')).toBe(null);
});
