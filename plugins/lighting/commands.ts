/** `hearth site ...` subcommands; each one calls the admin routes of the running hub (routes/admin.ts). */

import { type CliCommand, type CliIo, adminCall as call } from '../../core/sdk.ts';

interface SiteOut {
  siteid: string;
  name: string;
  sitekey?: string;
  url?: string;
  created?: string;
  lights?: number;
}

const jsonOption = { json: { type: 'boolean', description: 'Print JSON' } } as const;

function printKey(io: CliIo, site: SiteOut, json: boolean): void {
  if (json) io.out(JSON.stringify({ siteid: site.siteid, sitekey: site.sitekey }));
  else {
    io.out(`site id:  ${site.siteid}`);
    io.out(`site key: ${site.sitekey}`);
    if (site.url) io.out(`web UI:   ${site.url}`);
  }
}

export const siteCommands: CliCommand[] = [
  {
    name: 'site create',
    usage: 'hearth site create <name> [--json]',
    summary: 'Creates a site and prints its id and key (shown once)',
    options: jsonOption,
    positionals: [1],
    async run({ positionals: rest, values }, io) {
      const json = values.json === true;
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
    options: jsonOption,
    async run({ values }, io) {
      const sites = (await call(io, 'GET', '/admin/sites')) as SiteOut[] | null;
      if (!sites) return 1;
      if (values.json === true) io.out(JSON.stringify(sites));
      else for (const s of sites) io.out(`${s.siteid}  ${s.name}  (${s.lights ?? 0} lights)`);
      return 0;
    },
  },
  {
    name: 'site rename',
    usage: 'hearth site rename <siteid> <name>',
    summary: 'Renames a site',
    positionals: [2],
    async run({ positionals: [id = '', ...name] }, io) {
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
    options: jsonOption,
    positionals: [1, 1],
    async run({ positionals: [id = ''], values }, io) {
      const json = values.json === true;
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
    positionals: [1, 1],
    async run({ positionals: [id = ''] }, io) {
      if ((await call(io, 'DELETE', `/admin/sites/${encodeURIComponent(id)}`)) === null) return 1;
      io.out(`deleted ${id}`);
      return 0;
    },
  },
];
