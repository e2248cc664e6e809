/**
 * Moving from zigbee2mqtt or ZHA: the open coordinator backup (byte order, checks, export and back), the
 * zigbee2mqtt device database and friendly names, then `hearth zigbee import` of a zigbee2mqtt data
 * directory (built here in zigbee2mqtt's documented formats) and of a ZHA/zigpy backup onto the simulated
 * Silicon Labs stick: the devices appear named and answer without pairing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { briToLevel254 } from '../../drivers/lighting/index.ts';
import { parseOpenBackup, toOpenBackup } from '../../drivers/zigbee/migrate/open-backup.ts';
import { devicesFromDatabase, friendlyNames, mergeDevices } from '../../drivers/zigbee/migrate/z2m.ts';
import { FRAME_COUNTER_MARGIN, isStickSecurity } from '../../drivers/zigbee/znp/nv-backup.ts';
import { zigbeeCommands } from '../../plugins/zigbee/commands.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import type { SimDeviceName } from '../../scripts/simulators/znp-coordinator/index.ts';
import { type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import { IEEE, PID } from './sim-helpers.ts';

const dirs: string[] = [];
let sim: EzspSimulator | null = null;
let h: MqttHub | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
  await sim?.stop();
  sim = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A zigbee2mqtt coordinator_backup.json (open coordinator backup, version 1). */
const z2mBackup = (devices: Array<{ ieee: string; nwk: number }>) => ({
  metadata: {
    format: 'zigpy/open-coordinator-backup',
    version: 1,
    source: 'zigbee-herdsman@0.50.0',
    internal: { date: '2026-11-01T10:00:00.000Z', znpVersion: 1 },
  },
  stack_specific: { zstack: { tclk_seed: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' } },
  coordinator_ieee: '00124b0021b7a1b2',
  pan_id: '1a62',
  extended_pan_id: 'dd0123456789abcd',
  nwk_update_id: 0,
  security_level: 5,
  channel: 15,
  channel_mask: [15],
  network_key: { key: '01030507090b0d0f00020406080a0c0d', sequence_number: 0, frame_counter: 123_456 },
  devices: devices.map((d) => ({
    nwk_address: d.nwk.toString(16).padStart(4, '0'),
    ieee_address: d.ieee.slice(2),
    is_child: false,
    link_key: null,
  })),
});

/** A database.db line as zigbee-herdsman writes it for a simulated device. */
function z2mEntry(s: EzspSimulator, name: SimDeviceName, id: number): Json {
  const d = s.coordinator.devices.get(name);
  if (!d) throw new Error(name);
  const endpoints: Json = {};
  for (const e of d.endpoints)
    endpoints[e.id] = {
      profId: 260,
      epId: e.id,
      devId: e.deviceId,
      inClusterList: e.inClusters,
      outClusterList: e.outClusters,
      clusters: e.inClusters.includes(0x0300)
        ? {
            lightingColorCtrl: {
              attributes: { colorCapabilities: 0x19, colorTempPhysicalMin: 153, colorTempPhysicalMax: 454 },
            },
          }
        : {},
      binds: [],
      configuredReportings: [],
      meta: {},
    };
  return {
    id,
    type: d.logicalType === 1 ? 'Router' : 'EndDevice',
    ieeeAddr: d.ieee,
    nwkAddr: d.nwk,
    manufId: 4107,
    manufName: d.manufacturer,
    powerSource: 'Mains (single phase)',
    modelId: d.model,
    epList: d.endpoints.map((e) => e.id),
    endpoints,
    appVersion: 2,
    interviewCompleted: true,
    meta: {},
    lastSeen: 1_790_000_000_000,
  };
}

describe('open coordinator backup and the zigbee2mqtt files', () => {
  it('reads the network with every byte string most significant first, and refuses what is not one', () => {
    const b = parseOpenBackup(z2mBackup([{ ieee: IEEE.plug, nwk: 0x1234 }]));
    expect(b.network).toEqual({
      panId: 0x1a62,
      extendedPanId: 'dd0123456789abcd',
      networkKey: '01030507090b0d0f00020406080a0c0d',
      channel: 15,
      frameCounter: 123_456,
    });
    expect(b.security).toEqual({
      zstack: 'open',
      frameCounter: 123_456,
      coordinatorIeee: '0x00124b0021b7a1b2',
      tclkSeed: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    });
    expect(b.coordinatorIeee).toBe('0x00124b0021b7a1b2');
    expect(b.devices).toEqual([{ ieee: IEEE.plug, nwk: 0x1234 }]);
    expect(() => parseOpenBackup({ metadata: { format: 'other', version: 1 } })).toThrow(/format/);
    expect(() => parseOpenBackup({ ...z2mBackup([]), pan_id: 'zz' })).toThrow(/pan_id/);
    expect(() => parseOpenBackup({ ...z2mBackup([]), channel: 40 })).toThrow(/channel/);
    expect(() => parseOpenBackup([])).toThrow(/object/);
  });

  it('reads each device link key with its counters into the security state the restore writes (kept as a valid pending secret), and refuses bad counters', () => {
    const raw = z2mBackup([{ ieee: IEEE.motion, nwk: 0x1a05 }]);
    const withKey = (link_key: unknown) => ({
      ...raw,
      devices: raw.devices.map((d) => ({ ...d, link_key })),
    });
    const b = parseOpenBackup(withKey({ key: 'AB'.repeat(16), tx_counter: 1200, rx_counter: 700 }));
    expect(b.security.linkKeys).toEqual([
      { ieee: IEEE.motion, key: 'ab'.repeat(16), txCounter: 1200, rxCounter: 700 },
    ]);
    // The pending restore state goes through the secrets facility and is checked when read back.
    expect(isStickSecurity(JSON.parse(JSON.stringify(b.security)))).toBe(true);
    expect(isStickSecurity({ ...b.security, coordinatorIeee: '00124b0021b7a1b2' })).toBe(false);
    expect(isStickSecurity({ ...b.security, linkKeys: [{ ieee: IEEE.motion, key: 'zz' }] })).toBe(false);
    expect(parseOpenBackup(withKey({ key: '11'.repeat(16) })).security.linkKeys?.[0]).toMatchObject({
      txCounter: 0,
      rxCounter: 0,
    });
    expect(() => parseOpenBackup(withKey({ key: '11'.repeat(16), tx_counter: -1 }))).toThrow(
      /tx_counter must be a 32-bit counter/,
    );
  });

  it("Hearth's export reads back as the same network", () => {
    const network = {
      panId: 0x0abc,
      extendedPanId: '0011223344556677',
      networkKey: 'ab'.repeat(16),
      channel: 20,
    };
    const out = toOpenBackup({
      network,
      frameCounter: 99,
      coordinatorIeee: '0x00158d0099aabbcc',
      devices: [{ ieee: IEEE.colourBulb, nwk: 0x0005 }],
      version: 'test',
    });
    expect(out).toMatchObject({ pan_id: '0abc', coordinator_ieee: '00158d0099aabbcc' });
    const back = parseOpenBackup(JSON.parse(JSON.stringify(out)));
    expect(back.network).toEqual({ ...network, frameCounter: 99 });
    expect(back.devices).toEqual([{ ieee: IEEE.colourBulb, nwk: 5 }]);
  });

  it('reads database.db line by line (skipping the coordinator and bad lines) and configuration.yaml names', () => {
    const lines = [
      JSON.stringify({
        id: 1,
        type: 'Coordinator',
        ieeeAddr: '0x00124b0021b7a1b2',
        nwkAddr: 0,
        endpoints: {},
      }),
      'not json',
      JSON.stringify({
        id: 2,
        type: 'Router',
        ieeeAddr: IEEE.colourBulb,
        nwkAddr: 0x4001,
        manufName: 'Philips',
        modelId: 'LCT015',
        endpoints: {
          11: {
            epId: 11,
            devId: 269,
            inClusterList: [0, 6, 8, 768],
            outClusterList: [25],
            clusters: {
              lightingColorCtrl: {
                attributes: { colorCapabilities: 31, colorTempPhysicalMin: 153, colorTempPhysicalMax: 500 },
              },
            },
          },
        },
        interviewCompleted: true,
      }),
      '',
    ];
    const devices = devicesFromDatabase(lines.join('\n'));
    expect(devices).toEqual([
      {
        ieee: IEEE.colourBulb,
        nwk: 0x4001,
        manufacturer: 'Philips',
        model: 'LCT015',
        endpoints: [{ id: 11, deviceId: 269, inClusters: [0, 6, 8, 768], outClusters: [25] }],
        colorCapabilities: 31,
        ct: { min: 153, max: 500 },
        interviewed: true,
      },
    ]);
    const names = friendlyNames(
      `homeassistant: true\ndevices:\n  '${IEEE.colourBulb}':\n    friendly_name: Living room lamp\n`,
    );
    expect(names.get(IEEE.colourBulb)).toBe('Living room lamp');
    // A device only the backup knows becomes a bare record, to be interviewed; the backup's address wins.
    const merged = mergeDevices(devices, [
      { ieee: IEEE.colourBulb, nwk: 0x4002 },
      { ieee: IEEE.plug, nwk: 0x0003 },
    ]);
    expect(merged.map((d) => [d.ieee, d.nwk, d.interviewed])).toEqual([
      [IEEE.colourBulb, 0x4002, true],
      [IEEE.plug, 3, false],
    ]);
  });
});

async function hubOnEzsp(joined: SimDeviceName[]) {
  sim = await startEzspSimulator({ blank: true });
  // The devices stay on their network (its PAN, extended PAN id and key move with the backup).
  for (const n of joined) {
    const d = sim.coordinator.devices.get(n);
    if (d) d.joined = true;
  }
  h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
  return { sim, h };
}

async function runCli(hub: MqttHub, args: string[]) {
  const out: string[] = [];
  const cmd = zigbeeCommands.find((c) => c.name === 'zigbee import');
  if (!cmd) throw new Error('no zigbee import command');
  const code = await cmd.run(
    { positionals: args, values: {} },
    {
      admin: { request: (m: string, p: string, b?: unknown) => hub.t.admin(m, p, b) } as never,
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    },
  );
  return { code, out };
}

async function until<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const lights = async () => ((await h?.site('GET', '/light'))?.body ?? []) as Json[];

describe('hearth zigbee import', () => {
  it('a zigbee2mqtt data directory: the network moves onto the stick, devices appear named and answer without pairing', async () => {
    const { sim: s, h: hub } = await hubOnEzsp(['colourBulb', 'plug', 'remote', 'dimmableBulb']);
    const dir = mkdtempSync(join(tmpdir(), 'z2m-data-'));
    dirs.push(dir);
    const inDb = ['colourBulb', 'plug', 'remote'] as const;
    const everyone = [...inDb, 'dimmableBulb' as const].map((n) => ({
      ieee: IEEE[n],
      nwk: s.coordinator.devices.get(n)?.nwk ?? 0,
    }));
    writeFileSync(join(dir, 'coordinator_backup.json'), JSON.stringify(z2mBackup(everyone), null, 2));
    const coordinator = {
      id: 1,
      type: 'Coordinator',
      ieeeAddr: '0x00124b0021b7a1b2',
      nwkAddr: 0,
      epList: [1],
      endpoints: {},
      interviewCompleted: true,
      meta: {},
    };
    writeFileSync(
      join(dir, 'database.db'),
      `${[coordinator, ...inDb.map((n, i) => z2mEntry(s, n, i + 2))].map((e) => JSON.stringify(e)).join('\n')}\n`,
    );
    writeFileSync(
      join(dir, 'configuration.yaml'),
      'homeassistant: false\nmqtt:\n  server: mqtt://localhost\nserial:\n  port: /dev/ttyACM0\ndevices: devices.yaml\n',
    );
    writeFileSync(
      join(dir, 'devices.yaml'),
      `'${IEEE.colourBulb}':\n  friendly_name: Living room lamp\n'${IEEE.plug}':\n  friendly_name: Kettle plug\n'${IEEE.remote}':\n  friendly_name: Sofa remote\n`,
    );

    const r = await runCli(hub, [dir]);
    expect(r.out.join('\n')).toMatch(
      /imported the network of zigbee-herdsman@0\.50\.0: 4 devices, 3 lights and sensors \(3 named\)/,
    );
    expect(r.code).toBe(0);

    // The stick carries zigbee2mqtt's network, its frame counter well above the old one.
    await until(async () => (s.coordinator.networkUp && s.coordinator.panId === 0x1a62 ? true : undefined));
    expect(s.coordinator.tokens).toMatchObject({
      panId: 0x1a62,
      extendedPanId: 'dd0123456789abcd',
      networkKey: '01030507090b0d0f00020406080a0c0d',
      channel: 15,
    });
    expect(s.coordinator.frameCounter).toBeGreaterThanOrEqual(123_456 + FRAME_COUNTER_MARGIN);

    const all = await lights();
    const lamp = all.find((l) => l.zigbeeid === PID.colourBulb);
    expect(lamp).toMatchObject({ name: 'Living room lamp', type: 'dimmable', new: false });
    expect(all.find((l) => l.zigbeeid === PID.plug)).toMatchObject({ name: 'Kettle plug' });
    const sensors = ((await hub.site('GET', '/sensor')).body ?? []) as Json[];
    expect(sensors.find((x) => x.zigbeeid === PID.remote)).toMatchObject({ name: 'Sofa remote' });

    // No pairing: the lamp answers at once.
    await until(async () =>
      ((await hub.t.admin('GET', '/admin/zigbee/status')).body as Json).connected ? true : undefined,
    );
    expect((await hub.site('PUT', '/light/state', { _id: lamp?._id, on: true, bri: 150 })).status).toBe(200);
    const bulb = s.coordinator.devices.get('colourBulb');
    await until(async () => (bulb?.attr(0x0008, 0) === briToLevel254(150) ? true : undefined));
    // The device only the coordinator backup knew is interviewed on demand and becomes a light too.
    await until(async () =>
      (await lights()).some((l) => l.zigbeeid === PID.dimmableBulb) ? true : undefined,
    );
  });

  it('a ZHA (zigpy) backup file: the network moves; devices become known by reading their descriptors', async () => {
    const { sim: s, h: hub } = await hubOnEzsp(['dimmableBulb']);
    const dir = mkdtempSync(join(tmpdir(), 'zha-'));
    dirs.push(dir);
    const file = join(dir, 'zha-backup.json');
    const zha = z2mBackup([
      { ieee: IEEE.dimmableBulb, nwk: s.coordinator.devices.get('dimmableBulb')?.nwk ?? 0 },
    ]);
    writeFileSync(
      file,
      JSON.stringify({
        ...zha,
        metadata: { ...zha.metadata, source: 'zigpy@0.60.0' },
        stack_specific: { ezsp: { hashed_tclk: 'aa'.repeat(16) } },
      }),
    );
    const r = await runCli(hub, [file]);
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/zigpy@0\.60\.0: 1 devices/);
    const light = await until(async () => (await lights()).find((l) => l.zigbeeid === PID.dimmableBulb));
    expect((await hub.site('PUT', '/light/state', { _id: light._id, on: true, bri: 80 })).status).toBe(200);
    await until(async () =>
      s.coordinator.devices.get('dimmableBulb')?.attr(0x0008, 0) === briToLevel254(80) ? true : undefined,
    );
  });

  it("onto a stick without NVM3 tokens whose custom EUI64 token is already written: the old coordinator's address cannot move, and the status and the hub's notices say so", async () => {
    sim = await startEzspSimulator({ blank: true, customEui64: '0x00124b00aaaaaaaa', nvm3: false });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    const hub = h;
    const dir = mkdtempSync(join(tmpdir(), 'z2m-'));
    dirs.push(dir);
    const file = join(dir, 'coordinator_backup.json');
    writeFileSync(file, JSON.stringify(z2mBackup([])));
    expect((await runCli(hub, [file])).code).toBe(0);
    const status = await until(async () => {
      const b = (await hub.t.admin('GET', '/admin/zigbee/status')).body as Json;
      return b.restore && b.connected ? b : undefined;
    });
    expect(status.coordinator).toBe('0x00124b00aaaaaaaa');
    expect(status.restore.ieee).toMatchObject({ wanted: '0x00124b0021b7a1b2', taken: false });
    const notices = ((await hub.t.admin('GET', '/admin/hub')).body as { notices: Array<{ text: string }> })
      .notices;
    expect(notices).toContainEqual(
      expect.objectContaining({
        text: expect.stringMatching(
          /Zigbee restore was partial: the stick's custom EUI64 token already holds 0x00124b00aaaaaaaa and can be written only once/,
        ),
      }),
    );
  });

  it('refuses a file that is no coordinator backup with a 400 and changes nothing', async () => {
    const { h: hub } = await hubOnEzsp([]);
    const before = (await hub.t.admin('GET', '/admin/zigbee/backup')).body;
    for (const body of [
      { backup: { metadata: { format: 'x' } } },
      { backup: z2mBackup([]), database: 5 },
      { backup: z2mBackup([]), extra: 1 },
    ]) {
      const r = await hub.t.admin('POST', '/admin/zigbee/import', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_request' });
    }
    expect((await hub.t.admin('GET', '/admin/zigbee/backup')).body).toEqual(before);
  });
});
