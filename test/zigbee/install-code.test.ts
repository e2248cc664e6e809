/**
 * Install codes: the CRC and the AES-MMO key derivation against published values, then a device that
 * only joins with its install code, added through the admin API on both simulated sticks (Z-Stack via
 * APP_CNF_BDB_ADD_INSTALLCODE, EmberZNet via the transient link key of each EZSP protocol version).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  aesMmoHash,
  InstallCodeError,
  installCodeCrc,
  installCodeKey,
  parseInstallCode,
} from '../../drivers/zigbee/install-code.ts';
import { zigbeeCommands } from '../../plugins/zigbee/commands.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import { type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import { type AnySimulator, IEEE, makeDriver, STICKS } from './sim-helpers.ts';

/** The example install code and derived key Silicon Labs publishes (AN1089) for the Zigbee 3.0 scheme. */
const PUBLISHED_CODE = '83FED3407A939723A5C639B26916D505C3B5';
const PUBLISHED_KEY = '66b6900981e1ee3ca4206b6b861c02bb';

/** A code of `body` bytes with its CRC appended (least significant byte first), as printed. */
const withCrc = (body: Buffer): string => {
  const crc = Buffer.alloc(2);
  crc.writeUInt16LE(installCodeCrc(body));
  return Buffer.concat([body, crc]).toString('hex');
};

describe('install codes: validation and key derivation', () => {
  it('derives the published link key from the published install code (AES-MMO over code and CRC)', () => {
    expect(installCodeKey(parseInstallCode(PUBLISHED_CODE)).toString('hex')).toBe(PUBLISHED_KEY);
    // As printed on a label, in groups.
    expect(
      installCodeKey(parseInstallCode('83FE D340 7A93 9723 A5C6 39B2 6916 D505 C3B5')).toString('hex'),
    ).toBe(PUBLISHED_KEY);
  });

  it('the CRC is CRC-16/X-25: its catalogue check value for "123456789" is 0x906E', () => {
    expect(installCodeCrc(Buffer.from('123456789', 'ascii'))).toBe(0x906e);
    // The published code's last two bytes are its CRC, least significant first.
    expect(installCodeCrc(Buffer.from(PUBLISHED_CODE.slice(0, 32), 'hex'))).toBe(0xb5c3);
  });

  it('accepts 6, 8, 12 and 16 byte codes with a good CRC and rejects every other length', () => {
    for (const n of [6, 8, 12, 16]) expect(parseInstallCode(withCrc(Buffer.alloc(n, n))).length).toBe(n + 2);
    for (const n of [0, 4, 7, 10, 14, 18])
      expect(() => parseInstallCode(withCrc(Buffer.alloc(n, n)))).toThrow(/6, 8, 12 or 16 bytes/);
  });

  it('rejects a mistyped code (bad CRC) and text that is not hex', () => {
    expect(() => parseInstallCode(`${PUBLISHED_CODE.slice(0, -1)}4`)).toThrow(InstallCodeError);
    expect(() => parseInstallCode(`${PUBLISHED_CODE.slice(0, 4)}00${PUBLISHED_CODE.slice(6)}`)).toThrow(
      /CRC/,
    );
    expect(() => parseInstallCode('83FED3407A939723A5C639B26916D505C3BZ')).toThrow(/hexadecimal/);
    expect(() => parseInstallCode('83F')).toThrow(/hexadecimal/);
  });

  it('AES-MMO gives the Zigbee specification test vectors (Annex C.5): one byte, one block, 8191 bytes', () => {
    expect(aesMmoHash(Buffer.of(0xc0)).toString('hex')).toBe('ae3a102a28d43ee0d4a09e22788b206c');
    const block = Buffer.from(Array.from({ length: 16 }, (_, i) => 0xc0 + i));
    expect(aesMmoHash(block).toString('hex')).toBe('a7977e88bc0b61e8210827109a228f2d');
    const long = Buffer.from(Array.from({ length: 8191 }, (_, i) => i & 0xff));
    expect(aesMmoHash(long).toString('hex')).toBe('24ec2fe75bbffcb34789bc0610e7f165');
  });
});

let hub: MqttHub | null = null;
let sim: AnySimulator | null = null;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  await hub?.stop();
  hub = null;
  await sim?.stop();
  sim = null;
});

async function until<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What the simulated trust centre holds for an IEEE address. */
const heldKey = (s: AnySimulator, ieee: string): Buffer | undefined =>
  'installCodeKeys' in s.coordinator
    ? s.coordinator.installCodeKeys.get(ieee)
    : s.coordinator.transientKeys.get(ieee);

for (const stick of STICKS)
  describe(`install codes through the admin API on the simulated ${stick.kind} stick`, () => {
    it('a device made with an install code joins only after its code was given, and bad codes are 400', async () => {
      sim = await stick.start({ blank: true });
      const s = sim;
      const bulb = s.coordinator.devices.get('colourBulb');
      if (!bulb) throw new Error('the simulated network has no colour bulb');
      bulb.installCodeKey = installCodeKey(parseInstallCode(PUBLISHED_CODE));
      hub = await startMqttHub({ plugins: { zigbee: { path: s.path, site: 'Home' } } }, [
        'lighting',
        'zigbee',
      ]);
      const h = hub;
      await until(async () =>
        ((await h.t.admin('GET', '/admin/zigbee/status')).body as Json).connected ? true : undefined,
      );

      // Joining open, but the trust centre does not know the device's key: it cannot join.
      expect((await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 })).status).toBe(200);
      expect(s.coordinator.join('colourBulb')).toBe(false);

      const bad = async (body: unknown, message: RegExp) => {
        const r = await h.t.admin('POST', '/admin/zigbee/install-code', body);
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ error: 'invalid_request' });
        expect(String((r.body as Json).message)).toMatch(message);
        expect(JSON.stringify(r.body)).not.toContain(PUBLISHED_CODE.slice(0, 12));
      };
      await bad({ ieee: IEEE.colourBulb, code: `${PUBLISHED_CODE.slice(0, -1)}4` }, /CRC/);
      await bad({ ieee: IEEE.colourBulb, code: withCrc(Buffer.alloc(10, 1)) }, /6, 8, 12 or 16 bytes/);
      await bad({ ieee: '0x1234', code: PUBLISHED_CODE }, /ieee/);
      await bad({ ieee: IEEE.colourBulb }, /code/);
      await bad({ ieee: IEEE.colourBulb, code: PUBLISHED_CODE, seconds: 0 }, /seconds/);
      await bad({ ieee: IEEE.colourBulb, code: PUBLISHED_CODE, key: 'x' }, /unknown field key/);
      expect(heldKey(s, IEEE.colourBulb)).toBeUndefined();

      // Another device's (valid) code for this address: the keys differ, the bulb still cannot join.
      const other = withCrc(Buffer.from('0123456789abcdef', 'hex'));
      expect(
        (await h.t.admin('POST', '/admin/zigbee/install-code', { ieee: IEEE.colourBulb, code: other }))
          .status,
      ).toBe(200);
      expect(s.coordinator.join('colourBulb')).toBe(false);

      // Its own code: the derived key reaches the trust centre for its address, joining opens, it joins.
      const r = await h.t.admin('POST', '/admin/zigbee/install-code', {
        ieee: IEEE.colourBulb.toUpperCase().replace('0X', '0x'),
        code: PUBLISHED_CODE,
        seconds: 120,
      });
      expect(r).toMatchObject({ status: 200, body: { ieee: IEEE.colourBulb, seconds: 120 } });
      expect(JSON.stringify(r.body)).not.toMatch(/83fed3|66b690/i);
      expect(heldKey(s, IEEE.colourBulb)?.toString('hex')).toBe(PUBLISHED_KEY);
      expect(s.coordinator.join('colourBulb')).toBe(true);
      await until(async () =>
        ((await h.t.admin('GET', '/admin/zigbee/devices')).body as Json[]).some(
          (d: Json) => d.ieee === IEEE.colourBulb,
        )
          ? true
          : undefined,
      );

      // The CLI: a mistyped code is refused before the hub is called; the right one lets the plug join.
      const plugCode = withCrc(Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
      const plug = s.coordinator.devices.get('plug');
      if (!plug) throw new Error('the simulated network has no plug');
      plug.installCodeKey = installCodeKey(parseInstallCode(plugCode));
      const cli = zigbeeCommands.find((c) => c.name === 'zigbee install-code');
      if (!cli?.check) throw new Error('no zigbee install-code command');
      const typo = `${plugCode.slice(0, -1)}${plugCode.endsWith('0') ? '1' : '0'}`;
      expect(cli.check({ positionals: [IEEE.plug, typo], values: {} })).toMatch(/CRC/);
      expect(cli.check({ positionals: ['plug', plugCode], values: {} })).toMatch(/ieee/);
      expect(cli.check({ positionals: [IEEE.plug, plugCode, '30'], values: {} })).toBeNull();
      const out: string[] = [];
      const exit = await cli.run(
        { positionals: [IEEE.plug, plugCode, '30'], values: {} },
        {
          admin: { request: (m: string, p: string, b?: unknown) => h.t.admin(m, p, b) } as never,
          out: (l) => out.push(l),
          err: (l) => out.push(l),
        },
      );
      expect(exit).toBe(0);
      expect(out).toEqual([`${IEEE.plug} may join with its install code: joining open for 30 s`]);
      expect(s.coordinator.join('plug')).toBe(true);
    });
  });

describe('install codes on EmberZNet: the transient link key command of each EZSP protocol version', () => {
  for (const protocol of [12, 13, 14])
    it(`protocol ${protocol}: ${protocol < 13 ? 'addTransientLinkKey' : 'importTransientKey'}${protocol === 13 ? ' with its flags byte' : ''}`, async () => {
      const s: EzspSimulator = await startEzspSimulator({ blank: true, protocol });
      sim = s;
      const { driver } = makeDriver(s);
      cleanup.push(() => driver.stop());
      await driver.start();
      const bulb = s.coordinator.devices.get('dimmableBulb');
      if (!bulb) throw new Error('the simulated network has no dimmable bulb');
      const code = parseInstallCode(withCrc(Buffer.from('a1b2c3d4e5f6', 'hex')));
      bulb.installCodeKey = installCodeKey(code);
      const from = s.coordinator.log.length;
      await driver.addInstallCode(IEEE.dimmableBulb, code, 30);
      const sent = s.coordinator.log.slice(from).map((m) => m.name);
      expect(sent).toContain(protocol < 13 ? 'addTransientLinkKey' : 'importTransientKey');
      expect(sent.indexOf('permitJoining')).toBeGreaterThan(
        sent.indexOf(protocol < 13 ? 'addTransientLinkKey' : 'importTransientKey'),
      );
      expect(s.coordinator.transientKeys.get(IEEE.dimmableBulb)?.equals(installCodeKey(code))).toBe(true);
      expect(s.coordinator.join('dimmableBulb')).toBe(true);
    });
});
