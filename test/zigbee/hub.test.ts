/**
 * The zigbee plugin in a real hub against the simulated stick: a blank stick commissioned at start,
 * permit-join from the admin API, joined devices as new lights and sensors of the site, control through
 * the site API, backup, bad input, and a hub restart resuming the same network.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Attr, Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../drivers/zigbee/zcl/types.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import { PID } from './sim-helpers.ts';

let sim: ZnpSimulator | null = null;
let ezsp: EzspSimulator | null = null;
let h: MqttHub | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
  await sim?.stop();
  sim = null;
  await ezsp?.stop();
  ezsp = null;
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

/** The plugin's status once the stick is connected (after a start or restart the port may take a moment). */
const connectedStatus = (): Promise<Json> =>
  until(async () => {
    const body = ((await h?.t.admin('GET', '/admin/zigbee/status'))?.body ?? {}) as Json;
    return body.connected ? body : undefined;
  });

describe('zigbee plugin in the hub', () => {
  it('forms a network, pairs devices into new lights and sensors, controls them, backs up and resumes after a restart', async () => {
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    const status = await connectedStatus();
    expect(status).toMatchObject({ connected: true, devices: 0 });
    expect(JSON.stringify(status)).not.toMatch(/networkKey/);

    const pj = await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    expect(pj).toMatchObject({ status: 200, body: { seconds: 60 } });
    expect(sim.coordinator.join('colourBulb')).toBe(true);
    expect(sim.coordinator.join('remote')).toBe(true);
    const light = await until(async () =>
      (((await h?.site('GET', '/light'))?.body ?? []) as Json[]).find(
        (l: Json) => l.zigbeeid === PID.colourBulb,
      ),
    );
    expect(light).toMatchObject({ vendor: 'zigbee', type: 'dimmable', new: true });
    const sensor = await until(async () =>
      (((await h?.site('GET', '/sensor'))?.body ?? []) as Json[]).find(
        (s: Json) => s.zigbeeid === PID.remote,
      ),
    );
    expect(sensor).toMatchObject({ vendor: 'zigbee', new: true });

    expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128 })).status).toBe(200);
    const bulb = sim.coordinator.devices.get('colourBulb');
    await until(async () => (bulb?.attr(0x0008, 0) === 127 ? true : undefined));

    // The frame counter is read live while the hub may still be talking to the devices (state reads,
    // reporting set-up), so it lies between the counter before the request and the counter after it.
    const counterBefore = sim.coordinator.frameCounter;
    const backup = (await h.t.admin('GET', '/admin/zigbee/backup')).body as Json;
    expect(backup).toMatchObject({ format: 'hearth-zigbee-backup', version: 2 });
    // The stick's own security state, read live: frame counter and the trust-centre link-key seed.
    expect(backup.stick).toMatchObject({ zstack: '3.x.0' });
    expect(backup.stick.frameCounter).toBeGreaterThanOrEqual(counterBefore);
    expect(backup.stick.frameCounter).toBeLessThanOrEqual(sim.coordinator.frameCounter);
    expect(backup.stick.tclkSeed).toBe(sim.coordinator.nv.get(0x0101)?.toString('hex'));
    expect(JSON.stringify(h.t.logs)).not.toContain(backup.stick.tclkSeed);
    expect(backup.network.networkKey).toBe(sim.coordinator.nv.get(0x62)?.toString('hex'));
    expect(backup.devices).toHaveLength(2);
    // The spec exposes the device address as `<vendor>id`.
    expect(light.capabilities).toMatchObject({ ct: { min: 153, max: 500 } });
    // The key never reaches a log line.
    expect(JSON.stringify(h.t.logs)).not.toContain(backup.network.networkKey);

    // Restart: same network (no NV writes), the devices still known.
    const writes = sim.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite').length;
    sim.coordinator.powerCycle();
    h.t = await h.t.restart();
    const again = await connectedStatus();
    expect(again).toMatchObject({ connected: true, devices: 2, panId: backup.network.panId });
    expect(sim.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite').length).toBe(writes);
  });

  it('answers bad input with 4xx JSON and nothing stored changes', async () => {
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path } } }, ['lighting', 'zigbee']);
    const before = (await h.t.admin('GET', '/admin/zigbee/backup')).body as Json;
    for (const body of [{ seconds: 999 }, { seconds: -1 }, { seconds: 'x' }, { seconds: 10, extra: 1 }]) {
      const r = await h.t.admin('POST', '/admin/zigbee/permit-join', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_request' });
    }
    for (const body of [
      {},
      { format: 'hearth-zigbee-backup', version: 1, network: { panId: 0 } },
      { format: 'hearth-zigbee-backup', version: 1, network: before.network, devices: [{ ieee: 'nope' }] },
      { format: 'hearth-zigbee-backup', version: 2, network: before.network, stick: { zstack: '1.2' } },
      { format: 'hearth-zigbee-backup', version: 2, network: { ...before.network, frameCounter: -1 } },
      { format: 'hearth-zigbee-backup', version: 3, network: before.network },
    ]) {
      const r = await h.t.admin('POST', '/admin/zigbee/restore', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.t.admin('DELETE', '/admin/zigbee/devices/nope')).body).toMatchObject({
      error: 'invalid_request',
    });
    const unknown = await h.t.admin('DELETE', '/admin/zigbee/devices/0x0000000000000001');
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect((await h.t.admin('GET', '/admin/zigbee/backup')).body).toEqual(before);
  });

  it('removes a device through the admin API: it leaves the network, its light stays for the operator', async () => {
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    sim.coordinator.join('plug');
    const devices = await until(async () => {
      const list = (await h?.t.admin('GET', '/admin/zigbee/devices'))?.body as Json[];
      return list.length === 1 && list[0].interviewed ? list : undefined;
    });
    expect(devices[0]).toMatchObject({ ieee: '0x000d6f0000000003', manufacturer: 'innr', model: 'SP 120' });
    // The light is adopted just after the interview: removal is only meaningful once it exists.
    await until(async () => {
      const lights = (await h?.site('GET', '/light'))?.body as Json[];
      return lights.length === 1 ? lights : undefined;
    });
    const r = await h.t.admin('DELETE', '/admin/zigbee/devices/0x000D6F0000000003');
    expect(r).toMatchObject({ status: 200, body: { removed: true, confirmed: true } });
    expect(sim.coordinator.devices.get('plug')?.joined).toBe(false);
    expect((await h.t.admin('GET', '/admin/zigbee/devices')).body).toEqual([]);
    expect((await h.t.admin('GET', '/admin/zigbee/status')).body).toMatchObject({ devices: 0 });
    const lights = (await h.site('GET', '/light')).body as Json[];
    expect(lights.map((l: Json) => l.zigbeeid)).toEqual([PID.plug]);
  });

  it('moves a network key stored in plain text by an older version into the secrets facility, resuming the same network', async () => {
    sim = await startZnpSimulator({ blank: false });
    const dir = mkdtempSync(join(tmpdir(), 'hearth-zigbee-old-'));
    try {
      // The stick carries PAN 0x1234, extended PAN dd…, key 01…01 (the simulator's formed network).
      const old = {
        panId: 0x1234,
        extendedPanId: 'dddddddddddddddd',
        networkKey: '01'.repeat(16),
        channel: 11,
      };
      writeFileSync(join(dir, 'zigbee.network.json'), JSON.stringify({ network: old }));
      h = await startMqttHub({ dataDir: dir, plugins: { zigbee: { path: sim.path, site: 'Home' } } }, [
        'lighting',
        'zigbee',
      ]);
      expect(await connectedStatus()).toMatchObject({ connected: true, panId: 0x1234 });
      // Resumed, not commissioned again.
      expect(sim.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite')).toHaveLength(0);
      const stored = readFileSync(join(dir, 'zigbee.network.json'), 'utf8');
      expect(stored).not.toContain(old.networkKey);
      expect(JSON.parse(stored).network).toMatchObject({ panId: 0x1234, channel: 11 });
      expect(readFileSync(join(dir, 'secrets.json'), 'utf8')).not.toContain(old.networkKey);
      expect(((await h.t.admin('GET', '/admin/zigbee/backup')).body as Json).network.networkKey).toBe(
        old.networkKey,
      );
      // And after a restart, from the secrets facility alone.
      h.t = await h.t.restart();
      expect(await connectedStatus()).toMatchObject({ connected: true, panId: 0x1234 });
      expect(sim.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite')).toHaveLength(0);
      await h.t.stop();
      h = null;

      // Without the secrets key the stored network is not replaced by a new one: the driver waits.
      rmSync(join(dir, 'keys'), { recursive: true, force: true });
      h = await startMqttHub({ dataDir: dir, plugins: { zigbee: { path: sim.path, site: 'Home' } } }, [
        'lighting',
        'zigbee',
      ]);
      expect((await h.t.admin('GET', '/admin/zigbee/status')).body).toMatchObject({ connected: false });
      expect(sim.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite')).toHaveLength(0);
      expect(JSON.parse(readFileSync(join(dir, 'zigbee.network.json'), 'utf8')).network.panId).toBe(0x1234);
    } finally {
      await h?.t.stop();
      h = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restores a backup with its stick security state onto a replacement stick through the admin API', async () => {
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    sim.coordinator.join('plug');
    await until(async () =>
      (((await h?.t.admin('GET', '/admin/zigbee/devices'))?.body ?? []) as Json[])[0]?.interviewed
        ? true
        : undefined,
    );
    const backup = (await h.t.admin('GET', '/admin/zigbee/backup')).body as Json;
    await h.t.stop();
    h = null;
    await sim.stop();

    // A new Hearth (fresh data dir) on a replacement stick.
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    const formed = sim.coordinator.panId;
    expect(formed).not.toBe(backup.network.panId);
    const r = await h.t.admin('POST', '/admin/zigbee/restore', backup);
    expect(r).toMatchObject({ status: 200, body: { restored: true, devices: 1 } });
    await until(async () =>
      ((await h?.t.admin('GET', '/admin/zigbee/status'))?.body as Json | undefined)?.connected
        ? true
        : undefined,
    );
    const c = sim.coordinator;
    expect(c.panId).toBe(backup.network.panId);
    expect(c.frameCounter).toBe(backup.stick.frameCounter + 100_000);
    expect(c.nv.get(0x0101)?.toString('hex')).toBe(backup.stick.tclkSeed);
    expect(c.nvEx.get('4:0')?.toString('hex')).toBe(backup.stick.tclkTable[0]);
    // Applied once: the pending security state is no longer kept anywhere.
    const stored = readFileSync(join(h.t.dataDir, 'zigbee.network.json'), 'utf8');
    expect(stored).not.toContain(backup.stick.tclkSeed);
    expect(stored).not.toContain(backup.network.networkKey);
  });

  it("pairing from the site (the web UI's countdown) opens permit-join on the stick for that long and answers with the devices that joined", async () => {
    sim = await startZnpSimulator({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    const connections = (await h.site('GET', '/connection')).body as Json[];
    expect(connections.map((c: Json) => c._id)).toContain('zigbee');
    const pairing = h.site('POST', '/connection/discover', { _id: 'zigbee', duration: 2 });
    await until(async () =>
      sim?.coordinator.log.some((m) => m.name === 'zdoMgmtPermitJoinReq' && m.fields.duration === 2)
        ? true
        : undefined,
    );
    // The admin status counts the same window down (from when the stick took the request).
    const left = await until(async () => {
      const s = ((await h?.t.admin('GET', '/admin/zigbee/status'))?.body as Json | undefined)
        ?.permitJoinSeconds;
      return s > 0 ? s : undefined;
    });
    expect(left).toBeLessThanOrEqual(2);
    expect(sim.coordinator.join('dimmableBulb')).toBe(true);
    const r = await pairing;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ _id: 'zigbee', vendor: 'zigbee' });
    expect(r.body.devices.map((d: Json) => d.protocolid)).toEqual([PID.dimmableBulb]);
  });

  it('a bulb that is already on when it joins shows on in its new light, not off until it next reports', async () => {
    sim = await startZnpSimulator({ blank: true });
    const bulb = sim.coordinator.devices.get('dimmableBulb');
    bulb?.define(Cluster.ON_OFF, Attr.ON_OFF, DataType.BOOL, true);
    bulb?.define(Cluster.LEVEL, Attr.LEVEL_CURRENT, DataType.UINT8, 127);
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    await connectedStatus();
    await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    expect(sim.coordinator.join('dimmableBulb')).toBe(true);
    const light = await until(async () =>
      (((await h?.site('GET', '/light'))?.body ?? []) as Json[]).find(
        (l: Json) => l.zigbeeid === PID.dimmableBulb && l.on,
      ),
    );
    expect(light).toMatchObject({ on: true, bri: 128 });
  });

  it('on a Silicon Labs stick: found without configuring its kind, a colour bulb and a remote pair and work through the site API', async () => {
    ezsp = await startEzspSimulator({ blank: true });
    const stick = ezsp;
    h = await startMqttHub({ plugins: { zigbee: { path: stick.path, site: 'Home' } } }, [
      'lighting',
      'zigbee',
    ]);
    const status = await connectedStatus();
    expect(status).toMatchObject({ connected: true, stick: 'ezsp', detected: 'probe' });
    expect(String(status.firmware)).toMatch(/EmberZNet/);
    expect(h.t.logs.some((l) => l.msg === 'zigbee stick found' && l.stick === 'ezsp')).toBe(true);

    await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    expect(stick.coordinator.join('colourBulb')).toBe(true);
    expect(stick.coordinator.join('remote')).toBe(true);
    const light = await until(async () =>
      (((await h?.site('GET', '/light'))?.body ?? []) as Json[]).find(
        (l: Json) => l.zigbeeid === PID.colourBulb,
      ),
    );
    expect(light).toMatchObject({
      vendor: 'zigbee',
      type: 'dimmable',
      capabilities: { ct: { min: 153, max: 500 } },
    });
    const remote = await until(async () =>
      (((await h?.site('GET', '/sensor'))?.body ?? []) as Json[]).find(
        (x: Json) => x.zigbeeid === PID.remote,
      ),
    );
    const bulb = stick.coordinator.devices.get('colourBulb');
    expect(
      (await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128, ct: 250 })).status,
    ).toBe(200);
    await until(async () => (bulb?.attr(0x0008, 0) === 127 ? true : undefined));
    // The colour went to the bulb as a Color Control command.
    expect(bulb?.received.some((x) => x.cluster === 0x0300 && x.frame.kind === 1)).toBe(true);

    // The remote's "off" button switches the bulb off through a sensor action.
    const bound = await h.site('POST', '/sensor/action', {
      _id: remote._id,
      event: 'off',
      action: { type: 'light', _id: light._id, on: false, bri: 0 },
    });
    expect(bound.status).toBeLessThan(300);
    expect(stick.press('off')).toBe(true);
    await until(async () => (bulb?.attr(0x0006, 0) === false ? true : undefined));

    const counterBefore = stick.coordinator.frameCounter;
    const backup = (await h.t.admin('GET', '/admin/zigbee/backup')).body as Json;
    // The frame counter, the coordinator's IEEE address (a replacement takes it) and the hashed trust-centre
    // link key the stick derives each device's key from; the network keys are Hearth's own.
    expect(Object.keys(backup.stick).sort()).toEqual([
      'coordinatorIeee',
      'frameCounter',
      'hashedTclk',
      'zstack',
    ]);
    expect(backup.stick.hashedTclk).toMatch(/^[0-9a-f]{32}$/);
    expect(backup.stick.coordinatorIeee).toBe(stick.coordinator.ieee);
    expect(backup.stick.zstack).toBe('ezsp');
    expect(backup.stick.frameCounter).toBeGreaterThanOrEqual(counterBefore);
    expect(backup.stick.frameCounter).toBeLessThanOrEqual(stick.coordinator.frameCounter);
    expect(backup.network.networkKey).toBe(stick.coordinator.tokens?.networkKey);
  });
});
