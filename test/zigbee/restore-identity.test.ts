/**
 * Moving a network onto another stick without pairing again, at the level of what the devices keep: their
 * bindings name the old coordinator's IEEE address, and devices with a unique link key encrypt their
 * frames with it. A zigbee2mqtt backup and device database (in zigbee2mqtt's formats) are imported onto
 * each simulated stick; the sensor and remote bound to zigbee2mqtt's coordinator report to Hearth without
 * a new interview, because the stick took that address and holds their keys. A Silicon Labs stick whose
 * write-once custom EUI64 token already holds another address keeps it, and the restore says so.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import { parseOpenBackup } from '../../drivers/zigbee/migrate/open-backup.ts';
import { devicesFromDatabase } from '../../drivers/zigbee/migrate/z2m.ts';
import { Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { seedKey } from '../../drivers/zigbee/znp/identity.ts';
import { FRAME_COUNTER_MARGIN } from '../../drivers/zigbee/znp/nv-backup.ts';
import { startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import { startZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { type AnySimulator, IEEE, makeDriver, PID, STICKS, startConnected } from './sim-helpers.ts';

/** zigbee2mqtt's coordinator (a CC2652 stick) and its trust-centre seed. */
const OLD_IEEE = '0x00124b0021b7a1b2';
const SEED = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');

let sim: AnySimulator | null = null;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  await sim?.stop();
  sim = null;
});

type Migrated = 'remote' | 'motion';

/** coordinator_backup.json as zigbee2mqtt writes it, each device with its unique link key and counters. */
function z2mBackup(s: AnySimulator, keys: Record<Migrated, { key: Buffer; rx: number }>) {
  return {
    metadata: {
      format: 'zigpy/open-coordinator-backup',
      version: 1,
      source: 'zigbee-herdsman@0.50.0',
      internal: { date: '2026-11-01T10:00:00.000Z', znpVersion: 1 },
    },
    stack_specific: { zstack: { tclk_seed: SEED.toString('hex') } },
    coordinator_ieee: OLD_IEEE.slice(2),
    pan_id: '1a62',
    extended_pan_id: 'dd0123456789abcd',
    nwk_update_id: 0,
    security_level: 5,
    channel: 15,
    channel_mask: [15],
    network_key: { key: '01030507090b0d0f00020406080a0c0d', sequence_number: 0, frame_counter: 123_456 },
    devices: (Object.keys(keys) as Migrated[]).map((n) => ({
      nwk_address: (s.coordinator.devices.get(n)?.nwk ?? 0).toString(16).padStart(4, '0'),
      ieee_address: IEEE[n].slice(2),
      is_child: n === 'motion',
      link_key: { key: keys[n].key.toString('hex'), tx_counter: 1200, rx_counter: keys[n].rx },
    })),
  };
}

/** database.db: one zigbee-herdsman record per line, interview completed. */
function z2mDatabase(s: AnySimulator, names: Migrated[]): string {
  return names
    .map((n, i) => {
      const d = s.coordinator.devices.get(n);
      if (!d) throw new Error(n);
      const endpoints: Record<number, unknown> = {};
      for (const e of d.endpoints)
        endpoints[e.id] = {
          epId: e.id,
          profId: 260,
          devId: e.deviceId,
          inClusterList: e.inClusters,
          outClusterList: e.outClusters,
          clusters: {},
        };
      return JSON.stringify({
        id: i + 2,
        type: 'EndDevice',
        ieeeAddr: d.ieee,
        nwkAddr: d.nwk,
        manufName: d.manufacturer,
        modelId: d.model,
        endpoints,
        interviewCompleted: true,
      });
    })
    .join('\n');
}

/**
 * The network as zigbee2mqtt left it: the remote and the motion sensor joined, bound to zigbee2mqtt's
 * coordinator, each encrypting its frames with its own link key (the remote's derived from the seed, as
 * Z-Stack gives Zigbee 3.0 devices; the sensor's not).
 */
function z2mNetwork(s: AnySimulator) {
  const remote = s.coordinator.devices.get('remote');
  const motion = s.coordinator.devices.get('motion');
  if (!remote || !motion) throw new Error('simulated devices missing');
  remote.joined = true;
  motion.joined = true;
  for (const c of [Cluster.ON_OFF, Cluster.LEVEL, Cluster.SCENES]) remote.bind(c, OLD_IEEE);
  motion.bind(Cluster.OCCUPANCY, OLD_IEEE);
  remote.linkKey = seedKey(SEED, IEEE.remote, 5);
  remote.apsCounter = 40;
  motion.linkKey = randomBytes(16);
  motion.apsCounter = 700;
  const keys = {
    remote: { key: remote.linkKey, rx: 40 },
    motion: { key: motion.linkKey, rx: 700 },
  };
  return { remote, motion, backup: parseOpenBackup(z2mBackup(s, keys)) };
}

async function imported(s: AnySimulator, backup: ReturnType<typeof parseOpenBackup>) {
  const store = memoryStateStore();
  await store.setNetwork({ ...backup.network, security: backup.security });
  for (const d of devicesFromDatabase(z2mDatabase(s, ['remote', 'motion']))) await store.putDevice(d);
  const d = makeDriver(s, store);
  cleanup.push(() => d.driver.stop());
  await startConnected(d);
  return d;
}

const SUBJECTS = [
  ...STICKS,
  // EmberZNet before protocol 13: the older key-table command.
  { kind: 'ezsp (protocol 12)', start: () => startEzspSimulator({ blank: true, protocol: 12 }) },
];

describe.each(SUBJECTS)('moving from zigbee2mqtt onto a simulated $kind stick', (stick) => {
  it("the stick takes the old coordinator's IEEE address and the devices' link keys: a bound sensor and remote report without a new interview", async () => {
    sim = await stick.start({ blank: true });
    const s = sim;
    const { remote, motion, backup } = z2mNetwork(s);
    const { driver, sink } = await imported(s, backup);
    expect(driver.connection().connected).toBe(true);

    expect(s.coordinator.ieee).toBe(OLD_IEEE);

    let from = sink.reports.length;
    expect(s.press('on')).toBe(true);
    await expect(sink.waitFor((x) => x.kind === 'sensor', from)).resolves.toMatchObject({
      protocolid: PID.remote,
      event: 'on',
    });
    from = sink.reports.length;
    expect(s.motion(true)).toBe(true);
    await expect(sink.waitFor((x) => x.kind === 'sensor', from)).resolves.toMatchObject({
      protocolid: PID.motion,
      event: 'motion',
    });
    // No interview: the devices were asked nothing, their bindings still name the old coordinator.
    expect(remote.received).toEqual([]);
    expect(motion.received).toEqual([]);
    expect(remote.bindTargets.get(Cluster.ON_OFF)).toBe(OLD_IEEE);
    // Their frames were read because the stick holds each device's own key.
    expect(s.coordinator.heldKey(IEEE.remote)?.key).toEqual(remote.linkKey);
    expect(s.coordinator.heldKey(IEEE.motion)?.key).toEqual(motion.linkKey);
    expect(driver.status()).toMatchObject({
      coordinator: OLD_IEEE,
      restore: { ieee: { wanted: OLD_IEEE, taken: true }, linkKeys: { written: 2, of: 2 } },
    });
  });
});

describe('the coordinator IEEE address on a Z-Stack stick', () => {
  it('is written to the EXTADDR NV item (least significant byte first) before the reset that makes Z-Stack take it', async () => {
    const s = await startZnpSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    await imported(s, backup);
    expect(s.coordinator.nv.get(0x0001)?.toString('hex')).toBe('b2a1b721004b1200');
    const names = s.coordinator.log.map((m) => m.name);
    const extAddrWrite = s.coordinator.log.findIndex(
      (m) => m.name === 'sysOsalNvWrite' && m.fields.id === 0x0001,
    );
    expect(extAddrWrite).toBeGreaterThan(names.indexOf('appCnfBdbStartCommissioning'));
    expect(names.indexOf('sysResetReq')).toBeGreaterThan(extAddrWrite);
    // The devices' keys went into the tables with their trust-centre counters above the backup's.
    expect(s.coordinator.nvEx.get('4:0')?.readUInt32LE(0)).toBe(1200 + FRAME_COUNTER_MARGIN);
    expect(s.coordinator.nvEx.get('6:0')?.readUInt32LE(16)).toBe(1200 + FRAME_COUNTER_MARGIN);
  });
});

describe('the coordinator IEEE address on a Silicon Labs stick', () => {
  it('a custom EUI64 token already written cannot be changed: the stick keeps its address and the restore says what that means', async () => {
    const s = await startEzspSimulator({ blank: true, customEui64: '0x00124b00aaaaaaaa' });
    sim = s;
    const { backup } = z2mNetwork(s);
    const { driver, sink } = await imported(s, backup);
    expect(driver.connection().connected).toBe(true);
    expect(s.coordinator.ieee).toBe('0x00124b00aaaaaaaa');
    expect(s.coordinator.log.some((m) => m.name === 'setMfgToken')).toBe(false);
    const restore = driver.status().restore as { ieee: Record<string, unknown> };
    expect(restore.ieee).toMatchObject({ wanted: OLD_IEEE, taken: false });
    expect(String(restore.ieee.reason)).toMatch(
      /custom EUI64 token already holds 0x00124b00aaaaaaaa and can be written only once.*bound to the old coordinator report nothing/,
    );
    // As said: the remote still sends to zigbee2mqtt's coordinator, so nothing reaches Hearth.
    const from = sink.reports.length;
    expect(s.press('on')).toBe(false);
    expect(sink.reports.slice(from)).toEqual([]);
  });

  it('writes a blank custom EUI64 token once, least significant byte first, and resets so the NCP takes it', async () => {
    const s = await startEzspSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    await imported(s, backup);
    expect(s.coordinator.customEui64.toString('hex')).toBe('b2a1b721004b1200');
    const names = s.coordinator.log.map((m) => m.name);
    expect(names.filter((n) => n === 'setMfgToken')).toHaveLength(1);
    // The token is written before the network is formed; the NCP is reset and set up again to take it.
    expect(names.indexOf('setMfgToken')).toBeLessThan(names.indexOf('formNetwork'));
    expect(names.filter((n) => n === 'version')).toHaveLength(2);
    expect(names.lastIndexOf('version')).toBeGreaterThan(names.indexOf('setMfgToken'));
  });
});
