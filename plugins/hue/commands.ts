/** `hearth hue ...` subcommands; each one calls the admin routes of the running hub (routes.ts). */

import { type CliCommand, adminCall as call } from '../../core/sdk.ts';

interface BridgeOut {
  bridgeId: string;
  host: string;
  port: number;
  site: string;
  trust: 'pinned' | 'root';
  fingerprint256: string;
  connected: boolean;
}

export const hueCommands: CliCommand[] = [
  {
    name: 'hue pair',
    usage: 'hearth hue pair <bridge address> --site <site id or name> [--port <n>] [--bridge-id <id>]',
    summary: 'Pairs a Hue bridge: press its link button when asked (30 s)',
    options: {
      site: { type: 'string', description: 'Site the bridge serves' },
      port: { type: 'string', description: 'HTTPS port (default 443)' },
      'bridge-id': { type: 'string', description: 'The bridge id expected (16 hex digits)' },
    },
    positionals: [1, 1],
    check: ({ values }) => {
      if (typeof values.site !== 'string' || values.site === '') return '--site is required';
      if (values.port !== undefined && !/^\d{1,5}$/.test(String(values.port)))
        return '--port must be a number';
      return null;
    },
    async run({ positionals, values }, io) {
      io.out('Press the link button on the Hue bridge now: Hearth waits for it (30 s)…');
      const b = (await call(io, 'POST', '/admin/hue/bridges', {
        host: positionals[0],
        site: values.site,
        ...(values.port ? { port: Number(values.port) } : {}),
        ...(values['bridge-id'] ? { bridgeId: values['bridge-id'] } : {}),
      })) as BridgeOut | null;
      if (!b) return 1;
      io.out(`paired bridge ${b.bridgeId} at ${b.host}:${b.port} for site ${b.site}`);
      if (b.trust === 'pinned') {
        io.out(`its certificate is not signed by a trusted root: pinned it (SHA-256 ${b.fingerprint256})`);
      }
      return 0;
    },
  },
  {
    name: 'hue discover',
    usage: 'hearth hue discover',
    summary: 'Looks for Hue bridges on the LAN (mDNS, a few seconds)',
    async run(_input, io) {
      const found = (await call(io, 'GET', '/admin/hue/discover')) as Array<{
        bridgeId: string;
        host: string;
        port: number;
        name: string;
        paired: boolean;
      }> | null;
      if (!found) return 1;
      if (found.length === 0)
        io.out('no Hue bridge answered (pair one by address: hearth hue pair <address> --site <site>)');
      for (const b of found)
        io.out(`${b.bridgeId} ${b.host}:${b.port} "${b.name}"${b.paired ? ' (paired)' : ''}`);
      return 0;
    },
  },
  {
    name: 'hue bridges',
    usage: 'hearth hue bridges',
    summary: 'Lists paired Hue bridges',
    readsOnly: true,
    async run(_input, io) {
      const list = (await call(io, 'GET', '/admin/hue/bridges')) as BridgeOut[] | null;
      if (!list) return 1;
      for (const b of list) {
        io.out(
          `${b.bridgeId} ${b.host}:${b.port} site=${b.site} trust=${b.trust} ${b.connected ? 'connected' : 'DOWN'}`,
        );
      }
      return 0;
    },
  },
  {
    name: 'hue remove',
    usage: 'hearth hue remove <bridge id>',
    summary: 'Forgets a paired Hue bridge and its application key',
    positionals: [1, 1],
    async run({ positionals }, io) {
      const ok = await call(io, 'DELETE', `/admin/hue/bridges/${encodeURIComponent(positionals[0] ?? '')}`);
      return ok ? 0 : 1;
    },
  },
];
