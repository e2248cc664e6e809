/**
 * Moving a network onto another stick without pairing again, at the level of what the devices keep: their
 * bindings name the old coordinator's IEEE address, and devices with a unique link key encrypt their
 * frames with it. A zigbee2mqtt backup and device database (in zigbee2mqtt's formats) are imported onto
 * each simulated stick; the sensor and remote bound to zigbee2mqtt's coordinator report to Hearth without
 * a new interview, because the stick took that address and holds their keys. On a Silicon Labs stick the
 * address goes into the rewritable restored-EUI64 token where the firmware keeps its tokens in NVM3 (so
 * the stick can be migrated again), else into the write-once custom EUI64 token; a stick whose custom
 * token already holds another address and has no NVM3 keeps its address, and the restore says so.
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
import {
  type AnySimulator,
  fastOptions,
  IEEE,
  makeDriver,
  PID,
  STICKS,
  startConnected,
} from './sim-helpers.ts';

/** zigbee2mqtt's coordinator (a CC2652 stick) and its trust-centre seed. */
const OLD_IEEE = '0x00124b0021b7a1b2';
const SEED = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');

let sim: AnySimulator | null = null;
const cleanup: Array<() => Promise<void>> = [];

/** A clean-up step that does not end fails naming itself, instead of running into the hook's timeout. */
async function step(what: string, run: () => Promise<void>, ms = 20_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`clean-up: ${what} did not end within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([run(), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

afterEach(async () => {
  const s = sim;
  sim = null;
  for (const [i, c] of cleanup.splice(0).reverse().entries())
    await step(`driver stop #${i}`, () => c().catch(() => {}));
  if (s) await step('simulated stick stop', () => s.stop());
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

/** A second backup of another network whose coordinator had another address (a second migration). */
function otherBackup(s: AnySimulator, ieee: string) {
  const none = { key: randomBytes(16), rx: 0 };
  const b = z2mBackup(s, { remote: none, motion: none });
  return parseOpenBackup({
    ...b,
    coordinator_ieee: ieee.slice(2),
    pan_id: '2b73',
    extended_pan_id: 'ee0123456789abcd',
    devices: [],
  });
}

describe('the coordinator IEEE address on a Silicon Labs stick with NVM3 tokens (EmberZNet 7.x)', () => {
  it('goes into the rewritable restored-EUI64 token, even where the write-once custom EUI64 token is already written, and the NCP takes it after a reset', async () => {
    const s = await startEzspSimulator({ blank: true, customEui64: '0x00124b00aaaaaaaa' });
    sim = s;
    const { backup } = z2mNetwork(s);
    const { driver, sink } = await imported(s, backup);
    expect(s.coordinator.ieee).toBe(OLD_IEEE);
    expect(s.coordinator.nvm3?.restoredEui64.toString('hex')).toBe('b2a1b721004b1200');
    const names = s.coordinator.log.map((m) => m.name);
    expect(names).not.toContain('setMfgToken');
    // Written before the network is formed, then the NCP reset (a second version exchange) to take it.
    expect(names.indexOf('setTokenData')).toBeLessThan(names.indexOf('formNetwork'));
    expect(names.lastIndexOf('version')).toBeGreaterThan(names.indexOf('setTokenData'));
    expect(driver.status()).toMatchObject({
      coordinator: OLD_IEEE,
      restore: { ieee: { wanted: OLD_IEEE, taken: true, via: 'restored-eui64-token' } },
    });
    const from = sink.reports.length;
    expect(s.press('on')).toBe(true);
    await expect(sink.waitFor((x) => x.kind === 'sensor', from)).resolves.toMatchObject({
      protocolid: PID.remote,
    });
  });

  it('restoring twice onto the same stick with two different IEEE addresses: the token is written again and the stick takes the second address', async () => {
    const s = await startEzspSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    const first = await imported(s, backup);
    expect(s.coordinator.ieee).toBe(OLD_IEEE);
    await first.driver.stop();

    const SECOND = '0x00124b0033c4d5e6';
    const second = otherBackup(s, SECOND);
    const store = memoryStateStore();
    await store.setNetwork({ ...second.network, security: second.security });
    const d = makeDriver(s, store);
    cleanup.push(() => d.driver.stop());
    await startConnected(d);
    expect(s.coordinator.ieee).toBe(SECOND);
    expect(s.coordinator.nvm3?.writes).toBe(2);
    expect(s.coordinator.customEui64.equals(Buffer.alloc(8, 0xff))).toBe(true);
    expect(d.driver.status()).toMatchObject({
      coordinator: SECOND,
      extendedPanId: 'ee0123456789abcd',
      restore: { ieee: { wanted: SECOND, taken: true, via: 'restored-eui64-token' } },
    });
  });
});

describe('the coordinator IEEE address on a Silicon Labs stick without NVM3 tokens', () => {
  it('a custom EUI64 token already written cannot be changed: the stick keeps its address and the restore says what that means', async () => {
    const s = await startEzspSimulator({ blank: true, customEui64: '0x00124b00aaaaaaaa', nvm3: false });
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
    // The rewritable token was looked for first: this firmware does not know the token commands.
    expect(s.coordinator.log.some((m) => m.name === 'getTokenData')).toBe(true);
    expect(String(restore.ieee.note)).toMatch(/no rewritable restored-EUI64 token.*does not know/);
    // As said: the remote still sends to zigbee2mqtt's coordinator, so nothing reaches Hearth.
    const from = sink.reports.length;
    expect(s.press('on')).toBe(false);
    expect(sink.reports.slice(from)).toEqual([]);
  });

  it('writes a blank custom EUI64 token once, least significant byte first, and resets so the NCP takes it', async () => {
    const s = await startEzspSimulator({ blank: true, nvm3: false });
    sim = s;
    const { backup } = z2mNetwork(s);
    const { driver } = await imported(s, backup);
    expect(s.coordinator.ieee).toBe(OLD_IEEE);
    expect(driver.status()).toMatchObject({
      restore: { ieee: { wanted: OLD_IEEE, taken: true, via: 'custom-eui64-token' } },
    });
    expect(s.coordinator.customEui64.toString('hex')).toBe('b2a1b721004b1200');
    const names = s.coordinator.log.map((m) => m.name);
    expect(names.filter((n) => n === 'setMfgToken')).toHaveLength(1);
    // The token is written before the network is formed; the NCP is reset and set up again to take it.
    expect(names.indexOf('setMfgToken')).toBeLessThan(names.indexOf('formNetwork'));
    expect(names.filter((n) => n === 'version')).toHaveLength(2);
    expect(names.lastIndexOf('version')).toBeGreaterThan(names.indexOf('setMfgToken'));
  });
});

describe('a restore whose first start fails after the reset that makes the stick take it', () => {
  it('keeps the restore outcome: the status reports what was written while the stick is silent, and the final outcome once it starts again', async () => {
    const s = await startZnpSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    const store = memoryStateStore();
    await store.setNetwork({ ...backup.network, security: backup.security });
    for (const dev of devicesFromDatabase(z2mDatabase(s, ['remote', 'motion']))) await store.putDevice(dev);
    const unfinished: unknown[] = [];
    const restored: unknown[] = [];
    const d = makeDriver(s, store, {
      restoreUnfinished: (r) => unfinished.push(r),
      restored: (o) => restored.push(o),
    });
    cleanup.push(() => d.driver.stop());
    // The stick takes the restore, is told to reset, and answers nothing more: the first attempt fails.
    s.coordinator.faults.silentAfterReset = true;
    await d.driver.start();
    expect(s.coordinator.log.some((m) => m.name === 'sysResetReq')).toBe(true);
    expect(d.driver.connection().connected).toBe(false);
    expect(d.driver.status()).toMatchObject({
      connected: false,
      restore: {
        state: 'written',
        ieee: { wanted: OLD_IEEE, via: 'extaddr-nv-item' },
        linkKeys: { written: 2, of: 2 },
        lastError: expect.stringMatching(/sysResetInd/),
      },
    });
    expect(unfinished).toHaveLength(1);

    // Plugged again: the stick boots with what the restore wrote; the driver's retry starts it.
    const from = d.sink.reports.length;
    await s.unplug();
    await s.replug();
    await d.sink.waitFor((x) => x.kind === 'connection' && x.status.connected, from);
    expect(d.driver.status()).toMatchObject({
      connected: true,
      coordinator: OLD_IEEE,
      restore: {
        state: 'done',
        ieee: { wanted: OLD_IEEE, taken: true, via: 'extaddr-nv-item' },
        linkKeys: { written: 2, of: 2 },
      },
    });
    expect(d.driver.status().restore).not.toHaveProperty('lastError');
    expect(restored).toEqual([
      { ieee: { wanted: OLD_IEEE, taken: true, via: 'extaddr-nv-item' }, linkKeys: { written: 2, of: 2 } },
    ]);
    // The restore is recorded once: the stick's own start did not restore again, and its devices report.
    expect(s.coordinator.log.filter((m) => m.name === 'sysResetReq')).toHaveLength(1);
    const reported = d.sink.reports.length;
    expect(s.press('on')).toBe(true);
    await expect(d.sink.waitFor((x) => x.kind === 'sensor', reported)).resolves.toMatchObject({
      protocolid: PID.remote,
    });
  });
});

describe('a restore whose first start fails after the reset that makes a Silicon Labs stick take it', () => {
  it('keeps the restore outcome on EZSP too: written to the restored-EUI64 token while the NCP is silent, final once it starts again', async () => {
    const s = await startEzspSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    const store = memoryStateStore();
    await store.setNetwork({ ...backup.network, security: backup.security });
    for (const dev of devicesFromDatabase(z2mDatabase(s, ['remote', 'motion']))) await store.putDevice(dev);
    const d = makeDriver(s, store);
    cleanup.push(() => d.driver.stop());
    // The NCP takes the token, is reset to boot with it, and answers nothing more: the attempt fails.
    s.coordinator.faults.silentAfterEui64Reset = true;
    await d.driver.start();
    expect(d.driver.connection().connected).toBe(false);
    expect(d.driver.status()).toMatchObject({
      connected: false,
      restore: {
        state: 'written',
        ieee: { wanted: OLD_IEEE, via: 'restored-eui64-token' },
        lastError: expect.any(String),
      },
    });

    const from = d.sink.reports.length;
    await s.unplug();
    await s.replug();
    await d.sink.waitFor((x) => x.kind === 'connection' && x.status.connected, from);
    // The retry found the address taken; the outcome still says where the first attempt put it.
    expect(d.driver.status()).toMatchObject({
      connected: true,
      coordinator: OLD_IEEE,
      restore: {
        state: 'done',
        ieee: { wanted: OLD_IEEE, taken: true, via: 'restored-eui64-token' },
        linkKeys: { written: 2, of: 2 },
      },
    });
    expect(s.coordinator.nvm3?.writes).toBe(1);
    const reported = d.sink.reports.length;
    expect(s.press('on')).toBe(true);
    await expect(d.sink.waitFor((x) => x.kind === 'sensor', reported)).resolves.toMatchObject({
      protocolid: PID.remote,
    });
  });
});

describe('stopping the driver while a start attempt waits on the stick', () => {
  it('ends the attempt at once: its port and pending waits are closed, not left to run out their timeouts after the stop', async () => {
    const s = await startZnpSimulator({ blank: true });
    sim = s;
    const { backup } = z2mNetwork(s);
    const store = memoryStateStore();
    await store.setNetwork({ ...backup.network, security: backup.security });
    // The stick goes silent after the restore's reset; the attempt waits for it as long as a real one may.
    s.coordinator.faults.silentAfterReset = true;
    const d = makeDriver(s, store, undefined, {
      timings: { ...fastOptions(s.path).timings, startupMs: 120_000 },
    });
    cleanup.push(() => d.driver.stop());
    const starting = d.driver.start();
    while (!s.coordinator.log.some((m) => m.name === 'sysResetReq'))
      await new Promise((r) => setTimeout(r, 10));
    await d.driver.stop();
    // Without the stop closing it, this would wait out the two-minute start-up wait (past the test's timeout).
    await starting;
    expect(d.driver.connection().connected).toBe(false);
    // A stop is not a failed restore: the record still says what was written, with no error of the stop's.
    expect(store.restoreRecord()).toMatchObject({ state: 'written' });
    expect(store.restoreRecord()).not.toHaveProperty('lastError');
  });
});
