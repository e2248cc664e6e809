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

interface PairingOut {
  id: string;
  state: 'waiting' | 'paired' | 'failed';
  host: string;
  port: number;
  site: string;
  deadline: string;
  bridgeId?: string;
  trust?: 'pinned' | 'root';
  fingerprint256?: string;
  error?: { code: string; message: string };
}

const POLL_MS = 500;

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
      // A pairing job on the hub: it keeps waiting even if this command is interrupted or the hub restarts.
      const job = await call<PairingOut>(io, 'POST', '/admin/hue/pairings', {
        host: positionals[0],
        site: values.site,
        ...(values.port ? { port: Number(values.port) } : {}),
        ...(values['bridge-id'] ? { bridgeId: values['bridge-id'] } : {}),
      });
      if (!job) return 1;
      const seconds = Math.max(0, Math.round((Date.parse(job.deadline) - Date.now()) / 1000));
      io.out(`Press the link button on the Hue bridge now: Hearth waits for it (${seconds} s)…`);
      let now: PairingOut | null = job;
      while (now?.state === 'waiting') {
        await new Promise((r) => setTimeout(r, POLL_MS));
        now = await call<PairingOut>(io, 'GET', `/admin/hue/pairings/${encodeURIComponent(job.id)}`);
      }
      if (!now) return 1;
      if (now.state === 'failed') {
        io.err(`error: ${now.error?.message ?? 'pairing failed'} (${now.error?.code ?? 'pairing_failed'})`);
        return 1;
      }
      io.out(`paired bridge ${now.bridgeId} at ${now.host}:${now.port} for site ${now.site}`);
      if (now.trust === 'pinned') {
        io.out(`its certificate is not signed by a trusted root: pinned it (SHA-256 ${now.fingerprint256})`);
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
