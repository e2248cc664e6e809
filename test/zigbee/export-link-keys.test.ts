/**
 * Exporting the devices' link keys: `GET /admin/zigbee/backup/open` reads each device's unique
 * trust-centre link key and its frame counters back from the stick (the Z-Stack NV tables, the EmberZNet
 * key table), so a network moved out of Hearth (to zigbee2mqtt, ZHA, or another Hearth on either kind of
 * stick) keeps the devices that encrypt with their own key. Everything goes through the real hub over HTTP
 * (`POST /admin/zigbee/import`, then the export), against simulated sticks at the wire.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOpenBackup, toOpenBackup } from '../../drivers/zigbee/migrate/open-backup.ts';
import { Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { ieeeBytes, seedKey } from '../../drivers/zigbee/znp/identity.ts';
import { FRAME_COUNTER_MARGIN } from '../../drivers/zigbee/znp/nv-backup.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import type { Json, MqttHub } from '../mqtt/hub.ts';
import { importThroughHub } from './import-hub.ts';
import { type AnySimulator, IEEE, STICKS } from './sim-helpers.ts';

/** zigbee2mqtt's coordinator (a CC2652 stick) and its trust-centre seed. */
const OLD_IEEE = '0x00124b0021b7a1b2';
const SEED = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
const TX = 1200;
const RX = { remote: 40, motion: 700 } as const;
type Keyed = keyof typeof RX;
const KEYED: Keyed[] = ['remote', 'motion'];

const sims: AnySimulator[] = [];
const hubs: MqttHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.stop().catch(() => {});
  for (const s of sims.splice(0)) await s.stop().catch(() => {});
});

type Start = (opts?: { blank?: boolean }) => Promise<AnySimulator>;
const SUBJECTS: Array<{ kind: string; start: Start }> = [
  ...STICKS,
  // EmberZNet before protocol 13 (getKeyTableEntry, getKey) and 8.x (protocol 14: status first).
  { kind: 'ezsp (protocol 12)', start: () => startEzspSimulator({ blank: true, protocol: 12 }) },
  { kind: 'ezsp (protocol 14)', start: () => startEzspSimulator({ blank: true, protocol: 14 }) },
];
const ZNP = SUBJECTS[0] as { kind: string; start: Start };
const EZSP = SUBJECTS[1] as { kind: string; start: Start };

/** The remote and motion sensor of zigbee2mqtt's network, bound to its coordinator, each with its key. */
function z2mDevices(s: AnySimulator): Record<Keyed, Buffer> {
  const remote = s.coordinator.devices.get('remote');
  const motion = s.coordinator.devices.get('motion');
  if (!remote || !motion) throw new Error('simulated devices missing');
  remote.joined = true;
  motion.joined = true;
  for (const c of [Cluster.ON_OFF, Cluster.LEVEL, Cluster.SCENES]) remote.bind(c, OLD_IEEE);
  motion.bind(Cluster.OCCUPANCY, OLD_IEEE);
  // The remote's key derives from the seed (as Z-Stack gives Zigbee 3.0 devices); the sensor's does not.
  remote.linkKey = seedKey(SEED, IEEE.remote, 5);
  remote.apsCounter = RX.remote;
  motion.linkKey = randomBytes(16);
  motion.apsCounter = RX.motion;
  return { remote: remote.linkKey, motion: motion.linkKey };
}

/** coordinator_backup.json as zigbee2mqtt writes it, each device with its link key and counters. */
function z2mBackup(s: AnySimulator, keys: Record<Keyed, Buffer>) {
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
    devices: KEYED.map((n) => ({
      nwk_address: (s.coordinator.devices.get(n)?.nwk ?? 0).toString(16).padStart(4, '0'),
      ieee_address: IEEE[n].slice(2),
      is_child: n === 'motion',
      link_key: { key: keys[n].toString('hex'), tx_counter: TX, rx_counter: RX[n] },
    })),
  };
}

/** A hub on `s` with `backup` imported through the real endpoint, both devices' keys written. */
async function imported(s: AnySimulator, backup: unknown): Promise<MqttHub> {
  const { h, status } = await importThroughHub(s, backup, hubs);
  expect(status.restore.linkKeys).toMatchObject({ written: 2, of: 2 });
  return h;
}

async function exportOpen(h: MqttHub): Promise<Json> {
  const r = await h.t.admin('GET', '/admin/zigbee/backup/open');
  expect(r.status).toBe(200);
  return r.body;
}

const linkKeyOf = (backup: Json, ieee: string) =>
  (backup.devices as Json[]).find((d) => d.ieee_address === ieee.slice(2))?.link_key;

describe('toOpenBackup with the stick security state', () => {
  const network = {
    panId: 0x1a62,
    extendedPanId: 'dd0123456789abcd',
    networkKey: 'ab'.repeat(16),
    channel: 15,
  };
  const base = { network, frameCounter: 9, coordinatorIeee: OLD_IEEE, version: 'test' };

  it('gives a device without a key on the stick null, and adds a device only the key table knows with no network address', () => {
    const out = toOpenBackup({
      ...base,
      devices: [
        { ieee: IEEE.plug, nwk: 0x0003 },
        { ieee: IEEE.motion, nwk: 0x1a05 },
      ],
      stick: {
        zstack: 'ezsp',
        frameCounter: 9,
        linkKeys: [
          { ieee: IEEE.motion, key: '11'.repeat(16), txCounter: 5, rxCounter: 6 },
          { ieee: IEEE.contact, key: '22'.repeat(16), txCounter: 7, rxCounter: 8 },
        ],
      },
    }) as Json;
    expect(out.devices).toEqual([
      { nwk_address: '0003', ieee_address: IEEE.plug.slice(2), is_child: false, link_key: null },
      {
        nwk_address: '1a05',
        ieee_address: IEEE.motion.slice(2),
        is_child: false,
        link_key: { key: '11'.repeat(16), tx_counter: 5, rx_counter: 6 },
      },
      {
        nwk_address: null,
        ieee_address: IEEE.contact.slice(2),
        is_child: false,
        link_key: { key: '22'.repeat(16), tx_counter: 7, rx_counter: 8 },
      },
    ]);
    expect(out.stack_specific).toEqual({});
  });

  it('decodes Z-Stack 3.x.0 tables: a verified TCLK entry is the seed rotated by its shift, an APS table entry its own key; an unverified or empty entry is no key', () => {
    const tclk = (ieee: string, attr: number, shift: number, tx: number, rx: number) => {
      const e = Buffer.alloc(20);
      e.writeUInt32LE(tx, 0);
      e.writeUInt32LE(rx, 4);
      ieeeBytes(ieee).copy(e, 8);
      e[16] = attr;
      e[18] = shift;
      return e.toString('hex');
    };
    const ame = Buffer.alloc(12);
    ame[0] = 0x02;
    ieeeBytes(IEEE.motion).copy(ame, 4);
    const data = Buffer.concat([Buffer.alloc(16, 0x5a), Buffer.alloc(8)]);
    data.writeUInt32LE(300, 16);
    data.writeUInt32LE(400, 20);
    const links = Buffer.alloc(2 + 6 * 4);
    links.writeUInt16LE(1, 0);
    links.writeUInt16LE(0, 2);
    links.writeUInt16LE(0, 4);
    const out = toOpenBackup({
      ...base,
      devices: [
        { ieee: IEEE.remote, nwk: 1 },
        { ieee: IEEE.motion, nwk: 2 },
        { ieee: IEEE.plug, nwk: 3 },
      ],
      stick: {
        zstack: '3.x.0',
        frameCounter: 9,
        keySequence: 4,
        tclkSeed: SEED.toString('hex'),
        tclkTable: [
          tclk(IEEE.remote, 0x02, 7, 100, 200),
          tclk(IEEE.plug, 0x01, 3, 1, 1),
          Buffer.alloc(20).toString('hex'),
        ],
        addressManager: [ame.toString('hex')],
        apsKeyData: [data.toString('hex')],
        apsLinkKeyTable: links.toString('hex'),
      },
    }) as Json;
    expect(linkKeyOf(out, IEEE.remote)).toEqual({
      key: seedKey(SEED, IEEE.remote, 7).toString('hex'),
      tx_counter: 100,
      rx_counter: 200,
    });
    expect(linkKeyOf(out, IEEE.motion)).toEqual({ key: '5a'.repeat(16), tx_counter: 300, rx_counter: 400 });
    expect(linkKeyOf(out, IEEE.plug)).toBeNull();
    expect(out.devices).toHaveLength(3);
    expect(out.network_key).toMatchObject({ sequence_number: 4, frame_counter: 9 });
    expect(out.stack_specific).toEqual({ zstack: { tclk_seed: SEED.toString('hex') } });
  });
});

describe.each(SUBJECTS)('the open backup export from a simulated $kind stick', (stick) => {
  it('after a zigbee2mqtt backup with link keys is imported through POST /admin/zigbee/import, GET /admin/zigbee/backup/open gives each device its link key with counters at or above the imported ones', async () => {
    const s = await stick.start({ blank: true });
    sims.push(s);
    const keys = z2mDevices(s);
    const h = await imported(s, z2mBackup(s, keys));
    // The devices talk to the new stick (their frames decrypt with the keys it holds).
    expect(s.motion(true)).toBe(true);
    expect(s.press('on')).toBe(true);

    const out = await exportOpen(h);
    for (const n of KEYED) {
      const lk = linkKeyOf(out, IEEE[n]);
      expect(lk, n).toMatchObject({ key: keys[n].toString('hex') });
      expect(lk.tx_counter, n).toBeGreaterThanOrEqual(TX);
      expect(lk.rx_counter, n).toBeGreaterThanOrEqual(RX[n]);
    }
    if (stick.kind === 'znp') {
      // The seed comes along, as zigpy-znp and zigbee2mqtt write it; the trust centre's counter is the stick's.
      expect(out.stack_specific).toEqual({ zstack: { tclk_seed: SEED.toString('hex') } });
      expect(linkKeyOf(out, IEEE.remote).tx_counter).toBe(TX + FRAME_COUNTER_MARGIN);
    } else {
      const ncp = (s as EzspSimulator).coordinator;
      // Hearth forms with hashed link keys: the root key is exported as zigpy writes it.
      expect(out.stack_specific).toEqual({ ezsp: { hashed_tclk: ncp.tokens?.tcLinkKey } });
      expect(ncp.tokens?.tcLinkKey).toMatch(/^[0-9a-f]{32}$/);
      expect(linkKeyOf(out, IEEE.motion).tx_counter).toBe(ncp.apsFrameCounter);
      // EmberZNet's incoming counter is the last frame it took from the device (it started at 0).
      expect(linkKeyOf(out, IEEE.motion).rx_counter).toBeGreaterThan(RX.motion);
    }
    // Hearth reads its own export back with the same keys.
    expect(
      parseOpenBackup(out)
        .security.linkKeys?.map((k) => [k.ieee, k.key])
        .sort(),
    ).toEqual(KEYED.map((n) => [IEEE[n], keys[n].toString('hex')]).sort());
  });
});

/**
 * zigbee2mqtt's network imported onto `from`, exported from Hearth, imported onto a blank `to` stick: the
 * devices (same keys, same counters going on) now talk to the new stick.
 */
async function migrate(from: Start, to: Start) {
  const a = await from({ blank: true });
  sims.push(a);
  const keys = z2mDevices(a);
  const ha = await imported(a, z2mBackup(a, keys));
  expect(a.motion(true)).toBe(true);
  const exported = await exportOpen(ha);
  await ha.stop();
  hubs.splice(hubs.indexOf(ha), 1);

  // The same devices, now heard by the new stick: keys, counters and bindings as they were.
  const b = await to({ blank: true });
  sims.push(b);
  for (const n of KEYED) {
    const was = a.coordinator.devices.get(n);
    const d = b.coordinator.devices.get(n);
    if (!was || !d) throw new Error(n);
    d.joined = true;
    d.linkKey = was.linkKey;
    d.apsCounter = was.apsCounter;
    for (const [cluster, target] of was.bindTargets) d.bind(cluster, target);
  }
  const hb = await imported(b, exported);
  return { a, b, hb, keys, exported };
}

describe('moving a network with unique link keys between kinds of stick by an open backup', () => {
  it('Z-Stack export, imported onto a Silicon Labs stick: the key table holds each device key, the devices are heard, and a second export carries the keys', async () => {
    const { b, hb, keys, exported } = await migrate(ZNP.start, EZSP.start);
    expect(exported.stack_specific.zstack.tclk_seed).toBe(SEED.toString('hex'));
    for (const n of KEYED) expect(b.coordinator.heldKey(IEEE[n])?.key, n).toEqual(keys[n]);
    expect(b.motion(true)).toBe(true);
    expect(b.press('on')).toBe(true);
    const again = await exportOpen(hb);
    for (const n of KEYED) expect(linkKeyOf(again, IEEE[n])?.key, n).toBe(keys[n].toString('hex'));
  });

  it('Silicon Labs export, imported onto a Z-Stack stick: the APS key tables hold each device key, the devices are heard, and a second export carries the keys', async () => {
    const { b, hb, keys, exported } = await migrate(EZSP.start, ZNP.start);
    expect(exported.stack_specific.ezsp.hashed_tclk).toMatch(/^[0-9a-f]{32}$/);
    for (const n of KEYED) expect(b.coordinator.heldKey(IEEE[n])?.key, n).toEqual(keys[n]);
    expect(b.motion(true)).toBe(true);
    expect(b.press('on')).toBe(true);
    const again = await exportOpen(hb);
    for (const n of KEYED) {
      const lk = linkKeyOf(again, IEEE[n]);
      expect(lk?.key, n).toBe(keys[n].toString('hex'));
      // The exported counters were carried: the trust centre starts above the old stick's.
      expect(lk.tx_counter, n).toBeGreaterThan(linkKeyOf(exported, IEEE[n]).tx_counter);
      expect(lk.rx_counter, n).toBeGreaterThanOrEqual(linkKeyOf(exported, IEEE[n]).rx_counter);
    }
  });
});
