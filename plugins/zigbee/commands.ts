/** `hearth zigbee ...` subcommands; each one calls the admin routes of the running hub (routes.ts). */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { adminCall, type CliCommand, type CliIo } from '../../core/sdk.ts';
import { parseInstallCode } from '../../drivers/zigbee/install-code.ts';
import { devicesFileName } from '../../drivers/zigbee/migrate/z2m.ts';

const call = (io: CliIo, method: string, path: string, body?: unknown) =>
  adminCall<Record<string, unknown>>(io, method, path, body);

export const zigbeeCommands: CliCommand[] = [
  {
    name: 'zigbee status',
    usage: 'hearth zigbee status',
    summary: 'Shows whether the Zigbee stick is connected, its channel, PAN id and devices',
    options: {},
    positionals: [0, 0],
    async run(_input, io) {
      const s = await call(io, 'GET', '/admin/zigbee/status');
      if (!s) return 1;
      for (const [k, v] of Object.entries(s))
        io.out(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
      return 0;
    },
  },
  {
    name: 'zigbee permit-join',
    usage: 'hearth zigbee permit-join [seconds]',
    summary: 'Opens the Zigbee network for joining (0 closes it) and prints until when',
    options: {},
    positionals: [0, 1],
    check: ({ positionals }) =>
      positionals[0] !== undefined && !/^\d{1,3}$/.test(positionals[0]) ? 'seconds must be 0..254' : null,
    async run({ positionals }, io) {
      const seconds = positionals[0] === undefined ? undefined : Number(positionals[0]);
      const r = await call(io, 'POST', '/admin/zigbee/permit-join', seconds === undefined ? {} : { seconds });
      if (!r) return 1;
      const left = Number(r.seconds);
      io.out(
        left > 0
          ? `joining open for ${left} s (until ${new Date(Date.now() + left * 1000).toLocaleTimeString()})`
          : 'joining closed',
      );
      return 0;
    },
  },
  {
    name: 'zigbee install-code',
    usage: 'hearth zigbee install-code <ieee> <install code> [seconds]',
    summary:
      'Lets one device join by the install code printed on it (its IEEE address and code), opening joining',
    options: {},
    positionals: [2, 3],
    check: ({ positionals }) => {
      if (!/^0x[0-9a-fA-F]{16}$/.test(positionals[0] ?? ''))
        return 'ieee must be 0x followed by 16 hex digits';
      try {
        parseInstallCode(positionals[1] ?? '');
      } catch (err) {
        return (err as Error).message;
      }
      return positionals[2] !== undefined && !/^\d{1,3}$/.test(positionals[2])
        ? 'seconds must be 1..254'
        : null;
    },
    async run({ positionals }, io) {
      const ieee = (positionals[0] as string).toLowerCase();
      const r = await call(io, 'POST', '/admin/zigbee/install-code', {
        ieee,
        code: positionals[1],
        ...(positionals[2] === undefined ? {} : { seconds: Number(positionals[2]) }),
      });
      if (!r) return 1;
      io.out(`${ieee} may join with its install code: joining open for ${String(r.seconds)} s`);
      return 0;
    },
  },
  {
    name: 'zigbee devices',
    usage: 'hearth zigbee devices',
    summary: 'Lists the devices in the Zigbee network (IEEE address, network address, model)',
    options: {},
    positionals: [0, 0],
    async run(_input, io) {
      const list = await adminCall<Array<Record<string, unknown>>>(io, 'GET', '/admin/zigbee/devices');
      if (!list) return 1;
      for (const d of list)
        io.out(
          `${String(d.ieee)}  0x${Number(d.nwk).toString(16).padStart(4, '0')}  ${[d.manufacturer, d.model].filter(Boolean).join(' ')}`,
        );
      return 0;
    },
  },
  {
    name: 'zigbee remove',
    usage: 'hearth zigbee remove <ieee>',
    summary: 'Asks a device to leave the Zigbee network and forgets it (its light or sensor is kept)',
    options: {},
    positionals: [1, 1],
    check: ({ positionals }) =>
      /^0x[0-9a-fA-F]{16}$/.test(positionals[0] ?? '') ? null : 'ieee must be 0x followed by 16 hex digits',
    async run({ positionals }, io) {
      const ieee = (positionals[0] as string).toLowerCase();
      const r = await call(io, 'DELETE', `/admin/zigbee/devices/${ieee}`);
      if (!r) return 1;
      io.out(r.confirmed ? `${ieee} left the network` : `${ieee} did not answer; forgotten anyway`);
      return 0;
    },
  },
  {
    name: 'zigbee backup',
    usage: 'hearth zigbee backup',
    summary:
      'Prints the network (with its key: keep it safe) and device table as JSON, for a replacement stick',
    options: {},
    positionals: [0, 0],
    async run(_input, io) {
      const b = await call(io, 'GET', '/admin/zigbee/backup');
      if (!b) return 1;
      io.out(JSON.stringify(b, null, 2));
      return 0;
    },
  },
  {
    name: 'zigbee restore',
    usage: 'hearth zigbee restore <backup.json>',
    summary: 'Moves a backed-up network onto the stick now plugged in (same family) and restarts the driver',
    options: {},
    positionals: [1, 1],
    async run({ positionals }, io) {
      let backup: unknown;
      try {
        backup = JSON.parse(await readFile(positionals[0] as string, 'utf8'));
      } catch (err) {
        io.err(`error: cannot read ${positionals[0]}: ${(err as Error).message}`);
        return 1;
      }
      const r = await call(io, 'POST', '/admin/zigbee/restore', backup);
      if (!r) return 1;
      io.out(`restored a network with ${String(r.devices)} devices`);
      return 0;
    },
  },
  {
    name: 'zigbee import',
    usage: 'hearth zigbee import <zigbee2mqtt data dir | zha-backup.json>',
    summary:
      'Moves a zigbee2mqtt or ZHA network onto the stick now plugged in: devices keep working, named as before, without pairing',
    options: {},
    positionals: [1, 1],
    async run({ positionals }, io) {
      const path = positionals[0] as string;
      let body: Record<string, unknown>;
      try {
        body = await importBody(path);
      } catch (err) {
        io.err(`error: cannot read ${path}: ${(err as Error).message}`);
        return 1;
      }
      const r = await call(io, 'POST', '/admin/zigbee/import', body);
      if (!r) return 1;
      io.out(
        `imported the network of ${String(r.source)}: ${String(r.devices)} devices, ${String(r.added)} lights and sensors (${String(r.named)} named)`,
      );
      return 0;
    },
  },
];

/**
 * What `hearth zigbee import` sends: from a zigbee2mqtt data directory its coordinator backup, device
 * database, configuration and the devices file the configuration names; from a file, the file as an open
 * coordinator backup (ZHA/zigpy's export).
 */
export async function importBody(path: string): Promise<Record<string, unknown>> {
  if (!(await stat(path)).isDirectory()) return { backup: JSON.parse(await readFile(path, 'utf8')) };
  const text = (name: string) => readFile(join(path, name), 'utf8').catch(() => undefined);
  const backup = await text('coordinator_backup.json');
  if (backup === undefined)
    throw new Error('no coordinator_backup.json in it (start zigbee2mqtt once to write it)');
  const configuration = await text('configuration.yaml');
  const devicesName = devicesFileName(configuration);
  const devicesFile = devicesName ? await text(devicesName) : undefined;
  const database = await text('database.db');
  return {
    backup: JSON.parse(backup),
    ...(database !== undefined ? { database } : {}),
    ...(configuration !== undefined ? { configuration } : {}),
    ...(devicesFile !== undefined ? { devicesFile } : {}),
  };
}
