/**
 * Moving from ZHA on a Silicon Labs stick without pairing again: EmberZNet with hashed link keys derives
 * each device's trust-centre link key from one root, which zigpy exports as
 * `stack_specific.ezsp.hashed_tclk`. Imported through the real `POST /admin/zigbee/import` onto a blank
 * simulated EZSP stick, the stick forms with that root, so a device whose key it derives is heard again;
 * a Z-Stack stick cannot use it and the restore outcome says so.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { InitialSecurity } from '../../drivers/zigbee/ezsp/types.ts';
import { Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { hashedLinkKey } from '../../scripts/simulators/ezsp-ncp/hashed-keys.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import { startZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import { importThroughHub } from './import-hub.ts';
import { type AnySimulator, IEEE } from './sim-helpers.ts';

/** ZHA's coordinator (a Silicon Labs stick) and the root its devices' keys were hashed from. */
const OLD_IEEE = '0xccccccfffe1a2b3c';
const ROOT = Buffer.from('4f8a19c2d07be3562a91f0c4e7d8b361', 'hex');
const HASHED = InitialSecurity.TRUST_CENTER_USES_HASHED_LINK_KEY;

const sims: AnySimulator[] = [];
const hubs: MqttHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.stop().catch(() => {});
  for (const s of sims.splice(0)) await s.stop().catch(() => {});
});

/**
 * ZHA's network: a remote bound to its coordinator, encrypting with the key the old stick derived from
 * the root (no key table entry, so no `link_key` in the backup); a motion sensor with a key of its own.
 */
function zhaDevices(s: AnySimulator): Buffer {
  const remote = s.coordinator.devices.get('remote');
  const motion = s.coordinator.devices.get('motion');
  if (!remote || !motion) throw new Error('simulated devices missing');
  remote.joined = true;
  motion.joined = true;
  for (const c of [Cluster.ON_OFF, Cluster.LEVEL, Cluster.SCENES]) remote.bind(c, OLD_IEEE);
  motion.bind(Cluster.OCCUPANCY, OLD_IEEE);
  remote.linkKey = hashedLinkKey(ROOT, IEEE.remote);
  remote.apsCounter = 90;
  const own = randomBytes(16);
  motion.linkKey = own;
  motion.apsCounter = 300;
  return own;
}

/** The backup ZHA downloads, as zigpy writes it; `specific` its `stack_specific`. */
function zhaBackup(s: AnySimulator, motionKey: Buffer, specific: Record<string, unknown>) {
  const nwk = (n: 'remote' | 'motion') =>
    (s.coordinator.devices.get(n)?.nwk ?? 0).toString(16).padStart(4, '0');
  return {
    metadata: {
      format: 'zigpy/open-coordinator-backup',
      version: 1,
      source: 'bellows@0.40.0',
      internal: { creation_time: '2026-11-01T10:00:00+00:00' },
    },
    stack_specific: specific,
    coordinator_ieee: OLD_IEEE.slice(2),
    pan_id: '2b7c',
    extended_pan_id: 'a1b2c3d4e5f60718',
    nwk_update_id: 0,
    security_level: 5,
    channel: 20,
    channel_mask: [20],
    network_key: { key: '11223344556677889900aabbccddeeff', sequence_number: 0, frame_counter: 52_000 },
    devices: [
      { ieee_address: IEEE.remote.slice(2), nwk_address: nwk('remote'), is_child: false },
      {
        ieee_address: IEEE.motion.slice(2),
        nwk_address: nwk('motion'),
        is_child: true,
        link_key: { key: motionKey.toString('hex'), tx_counter: 800, rx_counter: 300 },
      },
    ],
  };
}

/** Hearth heard the device and read its descriptors (ZHA's devices become known when they next talk). */
const interviewed = (h: MqttHub, ieee: string) =>
  eventually(
    async () => {
      const list = (await h.t.admin('GET', '/admin/zigbee/devices')).body as Json[];
      return list.find((d) => d.ieee === ieee && d.interviewed) ? true : undefined;
    },
    `${ieee} interviewed`,
    20_000,
  );

describe("ZHA's hashed trust-centre link key (stack_specific.ezsp.hashed_tclk)", () => {
  it('hashed_tclk ignored on import: a blank Silicon Labs stick forms with it as its hashed trust-centre link key, a device whose key it derives is heard, and a second export carries it', async () => {
    const s = await startEzspSimulator({ blank: true });
    sims.push(s);
    const motionKey = zhaDevices(s);
    const { h, status } = await importThroughHub(
      s,
      zhaBackup(s, motionKey, { ezsp: { hashed_tclk: ROOT.toString('hex') } }),
      hubs,
    );
    expect(status.restore.hashedTclk).toEqual({ applied: true });
    const ncp = (s as EzspSimulator).coordinator;
    // setInitialSecurityState as the stick took it: the root as the preconfigured key, the hashed bits set.
    expect(ncp.tokens?.tcLinkKey).toBe(ROOT.toString('hex'));
    expect((ncp.tokens?.securityBitmask ?? 0) & HASHED).toBe(HASHED);
    // The remote has no key table entry: its frames decrypt only with the key derived from the same root.
    expect(ncp.keyTable.has(IEEE.remote)).toBe(false);
    expect(s.press('on')).toBe(true);
    expect(s.motion(true)).toBe(true);
    await interviewed(h, IEEE.remote);
    await interviewed(h, IEEE.motion);

    const again = (await h.t.admin('GET', '/admin/zigbee/backup/open')).body as Json;
    expect(again.stack_specific).toEqual({ ezsp: { hashed_tclk: ROOT.toString('hex') } });
  });

  it('without hashed_tclk the stick forms with a root of its own, and the device whose key the old stick derived is not heard', async () => {
    const s = await startEzspSimulator({ blank: true });
    sims.push(s);
    const motionKey = zhaDevices(s);
    const { h, status } = await importThroughHub(s, zhaBackup(s, motionKey, {}), hubs);
    expect(status.restore.hashedTclk).toBeUndefined();
    expect((s as EzspSimulator).coordinator.tokens?.tcLinkKey).not.toBe(ROOT.toString('hex'));
    expect(s.press('on')).toBe(false);
    // A device with a key of its own is unaffected.
    expect(s.motion(true)).toBe(true);
    await interviewed(h, IEEE.motion);
  });

  it('onto a Z-Stack stick: hashed_tclk cannot be used, and the restore outcome says so', async () => {
    const s = await startZnpSimulator({ blank: true });
    sims.push(s);
    const motionKey = zhaDevices(s);
    const { status } = await importThroughHub(
      s,
      zhaBackup(s, motionKey, { ezsp: { hashed_tclk: ROOT.toString('hex') } }),
      hubs,
    );
    expect(status.restore.hashedTclk).toMatchObject({
      applied: false,
      reason: expect.stringMatching(/Z-Stack/),
    });
    expect(status.restore.hashedTclk.reason).not.toContain(ROOT.toString('hex'));
    expect(s.press('on')).toBe(false);
  });

  it('a hashed_tclk that is not 32 hex digits is refused with 400, nothing restored', async () => {
    const s = await startEzspSimulator({ blank: true });
    sims.push(s);
    const h = await startMqttHub({ plugins: { zigbee: { path: s.path, site: 'Home' } } }, [
      'lighting',
      'zigbee',
    ]);
    hubs.push(h);
    for (const bad of ['4f8a19c2', 'zz'.repeat(16), 42]) {
      const r = await h.t.admin('POST', '/admin/zigbee/import', {
        backup: zhaBackup(s, randomBytes(16), { ezsp: { hashed_tclk: bad } }),
      });
      expect(r.status, String(bad)).toBe(400);
      expect(String((r.body as Json).message)).toMatch(/stack_specific\.ezsp\.hashed_tclk/);
    }
    const st = (await h.t.admin('GET', '/admin/zigbee/status')).body as Json;
    expect(st.restore ?? null).toBeNull();
  });
});
