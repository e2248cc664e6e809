/**
 * Operator routes on the admin listener (guarded by the admin key): status, permit-join with its
 * countdown, and backup/restore of the network. Errors: `{error, message}`.
 */
import { type HearthRouter, HttpError, jsonObjectBody, routeParam } from '../../core/sdk.ts';
import type { ZigbeeDeviceRecord } from '../../drivers/zigbee/device.ts';
import type { ZigbeeDriver } from '../../drivers/zigbee/driver.ts';
import { InstallCodeError, parseInstallCode } from '../../drivers/zigbee/install-code.ts';
import {
  BackupFormatError,
  parseOpenBackup,
  toOpenBackup,
} from '../../drivers/zigbee/migrate/open-backup.ts';
import { devicesFromDatabase, friendlyNames, mergeDevices } from '../../drivers/zigbee/migrate/z2m.ts';
import { isValidNetwork, type NetworkParams } from '../../drivers/zigbee/znp/network.ts';
import { isStickSecurity } from '../../drivers/zigbee/znp/nv-backup.ts';
import type { StickCandidate } from './sticks.ts';

/** `GET /admin/zigbee/sticks`: the by-id folder's serial devices and which one is in use. */
export interface SticksAnswer {
  folder: string;
  /** True when `plugins.zigbee.path` is set: the configuration decides, not the console. */
  configured: boolean;
  inUse: string | null;
  sticks: StickCandidate[];
}

/** What an import made known: devices stored, those with a light or sensor now, those named. */
export interface ImportResult {
  devices: number;
  added: number;
  named: number;
}

export interface RouteDeps {
  driver(): ZigbeeDriver | null;
  defaultSeconds: number;
  backup(): { network: NetworkParams | null; devices: ZigbeeDeviceRecord[] };
  /** Stores the network and devices and restarts the driver on them. */
  restore(network: NetworkParams, devices: ZigbeeDeviceRecord[]): Promise<void>;
  /** A restore from another controller's backup, then every known device added with its name. */
  importNetwork(
    network: NetworkParams,
    devices: ZigbeeDeviceRecord[],
    names: Map<string, string>,
  ): Promise<ImportResult>;
  /** The coordinator's IEEE address (for the open backup), '' when unknown. */
  coordinatorIeee(): string;
  sticks(): Promise<SticksAnswer>;
  /** Stores `path` as the chosen stick and restarts the driver on it. */
  useStick(path: string): Promise<void>;
}

const bad = (message: string) => new HttpError(400, 'invalid_request', message);

const body = jsonObjectBody;

function running(deps: RouteDeps): ZigbeeDriver {
  const d = deps.driver();
  if (!d?.connection().connected)
    throw new HttpError(503, 'unavailable', 'the Zigbee stick is not connected');
  return d;
}

const IEEE = /^0x[0-9a-f]{16}$/;
function validDevices(raw: unknown): ZigbeeDeviceRecord[] {
  if (!Array.isArray(raw) || raw.length > 500) throw bad('devices must be a list of at most 500 devices');
  for (const d of raw as ZigbeeDeviceRecord[]) {
    if (typeof d !== 'object' || d === null || typeof d.ieee !== 'string' || !IEEE.test(d.ieee))
      throw bad('every device needs an ieee address (0x + 16 hex digits)');
    if (!Number.isInteger(d.nwk) || d.nwk < 0 || d.nwk > 0xfff7)
      throw bad(`device ${d.ieee}: bad nwk address`);
    if (!Array.isArray(d.endpoints)) throw bad(`device ${d.ieee}: endpoints must be a list`);
  }
  return raw as ZigbeeDeviceRecord[];
}

export function mountRoutes(router: HearthRouter, deps: RouteDeps): void {
  router.get('/status', (ctx) => {
    const d = deps.driver();
    ctx.body = d ? d.status() : { connected: false, running: false };
  });

  router.post('/permit-join', async (ctx) => {
    const b = body(ctx);
    for (const k of Object.keys(b)) if (k !== 'seconds') throw bad(`unknown field ${k}`);
    const seconds = b.seconds ?? deps.defaultSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 254)
      throw bad('seconds must be an integer 0..254 (0 closes joining)');
    const d = running(deps);
    await d.permitJoin(seconds);
    ctx.body = { seconds: d.permitJoinRemaining() };
  });

  // One device by its install code: its key to the trust centre, then joining open (docs/zigbee.md#install-codes).
  // The code is a secret: it is never echoed or logged.
  router.post('/install-code', async (ctx) => {
    const b = body(ctx);
    for (const k of Object.keys(b))
      if (k !== 'ieee' && k !== 'code' && k !== 'seconds') throw bad(`unknown field ${k}`);
    const ieee = typeof b.ieee === 'string' ? b.ieee.toLowerCase() : '';
    if (!IEEE.test(ieee)) throw bad('ieee must be 0x followed by 16 hex digits');
    if (typeof b.code !== 'string') throw bad('code must be the install code as printed (hex digits)');
    const seconds = b.seconds ?? deps.defaultSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 254)
      throw bad('seconds must be an integer 1..254');
    let code: Buffer;
    try {
      code = parseInstallCode(b.code);
    } catch (err) {
      if (err instanceof InstallCodeError) throw bad(err.message);
      throw err;
    }
    const d = running(deps);
    try {
      await d.addInstallCode(ieee, code, seconds);
    } catch (err) {
      // The stick refused or did not answer: its status names the command, never the key.
      throw new HttpError(502, 'stick_error', `the stick did not take the key: ${(err as Error).message}`);
    }
    ctx.body = { ieee, seconds: d.permitJoinRemaining() };
  });

  router.get('/sticks', async (ctx) => {
    ctx.body = await deps.sticks();
  });

  // Only a name from the by-id listing is accepted: the console never makes the hub open any other file.
  router.put('/stick', async (ctx) => {
    const b = body(ctx);
    for (const k of Object.keys(b)) if (k !== 'path') throw bad(`unknown field ${k}`);
    if (typeof b.path !== 'string')
      throw bad('path must be the path of a stick from GET /admin/zigbee/sticks');
    const found = await deps.sticks();
    if (found.configured)
      throw new HttpError(
        409,
        'conflict',
        'plugins.zigbee.path is set in the configuration; change the stick there',
      );
    if (!found.sticks.some((s) => s.path === b.path))
      throw bad(`${b.path} is not a serial device under ${found.folder}`);
    await deps.useStick(b.path);
    ctx.body = { path: b.path };
  });

  router.get('/devices', (ctx) => {
    ctx.body = deps.backup().devices.map((d) => ({
      ieee: d.ieee,
      nwk: d.nwk,
      ...(d.manufacturer ? { manufacturer: d.manufacturer } : {}),
      ...(d.model ? { model: d.model } : {}),
      interviewed: d.interviewed,
    }));
  });

  // Leave request, then forgotten; the site's light or sensor stays (README: "Removing a device").
  router.delete('/devices/:ieee', async (ctx) => {
    const ieee = routeParam(ctx, 'ieee').toLowerCase();
    if (!IEEE.test(ieee)) throw bad('ieee must be 0x followed by 16 hex digits');
    const r = await running(deps).removeDevice(ieee);
    if (!r) throw new HttpError(404, 'not_found', `no Zigbee device ${ieee} in the network`);
    ctx.body = { removed: true, confirmed: r.confirmed };
  });

  // The backup holds the network key: it is the admin's to keep safe, never logged.
  router.get('/backup', async (ctx) => {
    const b = deps.backup();
    if (!b.network) throw new HttpError(404, 'not_found', 'no network has been formed yet');
    // The stick's own security state (frame counter, trust-centre link keys), read live when connected.
    const stick = await deps
      .driver()
      ?.stickSecurity()
      .catch(() => null);
    const { security: _pending, ...network } = b.network;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      format: 'hearth-zigbee-backup',
      version: 2,
      network: stick ? { ...network, frameCounter: stick.frameCounter } : network,
      devices: b.devices,
      ...(stick ? { stick } : {}),
    };
  });

  router.post('/restore', async (ctx) => {
    const b = body(ctx);
    if (b.format !== 'hearth-zigbee-backup' || (b.version !== 1 && b.version !== 2))
      throw bad('not a Hearth Zigbee backup (format, version 1 or 2)');
    if (!isValidNetwork(b.network))
      throw bad('network must have panId, extendedPanId, networkKey and channel 11..26');
    if (b.stick !== undefined && !isStickSecurity(b.stick))
      throw bad('stick must be the stick security state of a Hearth Zigbee backup');
    const devices = validDevices(b.devices ?? []);
    const { panId, extendedPanId, networkKey, channel, frameCounter } = b.network;
    const network: NetworkParams = { panId, extendedPanId, networkKey, channel };
    if (frameCounter !== undefined) network.frameCounter = frameCounter;
    if (b.stick) network.security = b.stick;
    await deps.restore(network, devices);
    ctx.body = { restored: true, devices: devices.length };
  });

  // The open coordinator backup (zigbee2mqtt's coordinator_backup.json, ZHA/zigpy), from Hearth's network.
  router.get('/backup/open', async (ctx) => {
    const b = deps.backup();
    if (!b.network) throw new HttpError(404, 'not_found', 'no network has been formed yet');
    const stick = await deps
      .driver()
      ?.stickSecurity()
      .catch(() => null);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = toOpenBackup({
      network: b.network,
      frameCounter: stick?.frameCounter ?? b.network.frameCounter ?? 0,
      coordinatorIeee: deps.coordinatorIeee() || '0x0000000000000000',
      devices: b.devices,
      version: '0.1.0',
      stick,
    });
  });

  /**
   * Moving from zigbee2mqtt or ZHA (docs/zigbee.md#moving-from-zigbee2mqtt-or-zha): `backup` is the open
   * coordinator backup; zigbee2mqtt adds `database` (database.db's text), `configuration`
   * (configuration.yaml's text) and `devicesFile` (the file its `devices:` names, if any).
   */
  router.post('/import', async (ctx) => {
    const b = body(ctx);
    for (const k of Object.keys(b))
      if (!['backup', 'database', 'configuration', 'devicesFile'].includes(k))
        throw bad(`unknown field ${k}`);
    for (const k of ['database', 'configuration', 'devicesFile'] as const)
      if (b[k] !== undefined && (typeof b[k] !== 'string' || (b[k] as string).length > 20_000_000))
        throw bad(`${k} must be the file's text`);
    let parsed: ReturnType<typeof parseOpenBackup>;
    let names: Map<string, string>;
    try {
      parsed = parseOpenBackup(b.backup);
      names = friendlyNames(b.configuration as string | undefined, b.devicesFile as string | undefined);
    } catch (err) {
      if (err instanceof BackupFormatError) throw bad(`not an open coordinator backup: ${err.message}`);
      throw bad('configuration.yaml could not be read as YAML');
    }
    const devices = mergeDevices(
      devicesFromDatabase((b.database as string | undefined) ?? ''),
      parsed.devices,
    );
    const network: NetworkParams = { ...parsed.network, security: parsed.security };
    const r = await deps.importNetwork(network, devices, names);
    ctx.body = { imported: true, source: parsed.source, ...r };
  });
}
