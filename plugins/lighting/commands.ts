/** `hearth site ...` subcommands; each one calls the admin routes of the running hub (routes/admin.ts). */
import type { CliCommand, CliIo } from '../../core/plugin/types.ts';

interface SiteOut {
  siteid: string;
  name: string;
  sitekey?: string;
  url?: string;
  created?: string;
  lights?: number;
}

const messageOf = (body: unknown) =>
  typeof body === 'object' && body !== null && 'message' in body
    ? String(body.message)
    : JSON.stringify(body);

/** The response body, or null after printing the hub's error message. */
async function call(io: CliIo, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await io.admin.request(method, path, body);
  if (res.status >= 400) {
    io.err(`error: ${messageOf(res.body)} (HTTP ${res.status})`);
    return null;
  }
  return res.body ?? {};
}

function split(args: string[]): { json: boolean; rest: string[] } {
  return { json: args.includes('--json'), rest: args.filter((a) => a !== '--json') };
}

function printKey(io: CliIo, site: SiteOut, json: boolean): void {
  if (json) io.out(JSON.stringify({ siteid: site.siteid, sitekey: site.sitekey }));
  else {
    io.out(`site id:  ${site.siteid}`);
    io.out(`site key: ${site.sitekey}`);
    if (site.url) io.out(`web UI:   ${site.url}`);
  }
}

const usageError = (io: CliIo, usage: string) => {
  io.err(`usage: ${usage}`);
  return 2;
};

export const siteCommands: CliCommand[] = [
  {
    name: 'site create',
    usage: 'hearth site create <name> [--json]',
    summary: 'Creates a site and prints its id and key (shown once)',
    async run(args, io) {
      const { json, rest } = split(args);
      if (rest.length === 0) return usageError(io, this.usage);
      const site = (await call(io, 'POST', '/admin/sites', { name: rest.join(' ') })) as SiteOut | null;
      if (!site) return 1;
      printKey(io, site, json);
      return 0;
    },
  },
  {
    name: 'site list',
    usage: 'hearth site list [--json]',
    summary: 'Lists sites (ids and names; keys are never shown again)',
    async run(args, io) {
      const sites = (await call(io, 'GET', '/admin/sites')) as SiteOut[] | null;
      if (!sites) return 1;
      if (split(args).json) io.out(JSON.stringify(sites));
      else for (const s of sites) io.out(`${s.siteid}  ${s.name}  (${s.lights ?? 0} lights)`);
      return 0;
    },
  },
  {
    name: 'site rename',
    usage: 'hearth site rename <siteid> <name>',
    summary: 'Renames a site',
    async run(args, io) {
      const [id, ...name] = args;
      if (!id || name.length === 0) return usageError(io, this.usage);
      const site = (await call(io, 'PATCH', `/admin/sites/${encodeURIComponent(id)}`, {
        name: name.join(' '),
      })) as SiteOut | null;
      if (!site) return 1;
      io.out(`${site.siteid}  ${site.name}`);
      return 0;
    },
  },
  {
    name: 'site rotate-key',
    usage: 'hearth site rotate-key <siteid> [--json]',
    summary: 'Gives a site a new key; the old key stops working at once',
    async run(args, io) {
      const { json, rest } = split(args);
      const id = rest[0];
      if (!id) return usageError(io, this.usage);
      const site = (await call(
        io,
        'POST',
        `/admin/sites/${encodeURIComponent(id)}/rotate-key`,
      )) as SiteOut | null;
      if (!site) return 1;
      printKey(io, site, json);
      return 0;
    },
  },
  {
    name: 'site delete',
    usage: 'hearth site delete <siteid>',
    summary: 'Deletes a site with its lights, scenes, groups and sensors',
    async run(args, io) {
      const id = args[0];
      if (!id) return usageError(io, this.usage);
      if ((await call(io, 'DELETE', `/admin/sites/${encodeURIComponent(id)}`)) === null) return 1;
      io.out(`deleted ${id}`);
      return 0;
    },
  },
];
