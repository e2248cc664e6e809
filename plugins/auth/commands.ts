/** `hearth auth ...` subcommands; each calls the admin API of the running hub (admin/*.ts). */

import { adminCall, type CliCommand, type CliIo } from '../../core/sdk.ts';

const call = (io: CliIo, method: string, path: string, body?: unknown) =>
  adminCall<Record<string, unknown>>(io, method, path, body);

export const authCommands: CliCommand[] = [
  {
    name: 'auth user add',
    usage: 'hearth auth user add <email> <name> [--admin]   (password in HEARTH_PASSWORD)',
    summary: 'Creates a person who can sign in (password from HEARTH_PASSWORD, never from the command line)',
    options: { admin: { type: 'boolean', description: 'Give the user the admin role' } },
    positionals: [2],
    check: () => (process.env.HEARTH_PASSWORD ? null : 'set the password in HEARTH_PASSWORD'),
    async run({ positionals: rest, values }, io) {
      const user = await call(io, 'POST', '/admin/users', {
        email: rest[0],
        name: rest.slice(1).join(' '),
        password: process.env.HEARTH_PASSWORD,
        role: values.admin === true ? 'admin' : 'user',
      });
      if (!user) return 1;
      io.out(`user id: ${String(user.id)}`);
      return 0;
    },
  },
  {
    name: 'auth device add',
    usage: 'hearth auth device add <name> --site <siteid> [--scope "scenes:apply lights:write"]',
    summary: 'Provisions a device (client credentials, tied to one site) and prints its id and secret once',
    options: {
      site: { type: 'string', description: 'Site id the device belongs to (required)' },
      scope: {
        type: 'string',
        description: 'Space-separated scopes (default: scenes:apply lights:write sensors:write)',
      },
    },
    positionals: [1],
    check: ({ values }) => (typeof values.site === 'string' ? null : '--site is required'),
    async run({ positionals: rest, values }, io) {
      const site = values.site as string;
      const scope = values.scope;
      const client = await call(io, 'POST', '/admin/clients', {
        client_name: rest.join(' '),
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: typeof scope === 'string' ? scope : 'scenes:apply lights:write sensors:write',
        resources: [`urn:hearth:site:${encodeURIComponent(site)}`],
        agent: false,
        agent_description: '',
      });
      if (!client) return 1;
      io.out(`client id:     ${String(client.client_id)}`);
      io.out(`client secret: ${String(client.client_secret)}`);
      io.out(`resource:      urn:hearth:site:${encodeURIComponent(site)}`);
      return 0;
    },
  },
  {
    name: 'auth dcr',
    usage: 'hearth auth dcr <open|approved_redirects|admin_only> [approved redirect URI...]',
    summary: 'Shows or sets who may register OAuth clients dynamically',
    positionals: [0],
    check: ({ positionals: [mode] }) =>
      mode === undefined || ['open', 'approved_redirects', 'admin_only'].includes(mode)
        ? null
        : 'mode must be one of open, approved_redirects, admin_only',
    async run({ positionals: args }, io) {
      if (args.length === 0) {
        const now = await call(io, 'GET', '/admin/settings/dcr');
        if (!now) return 1;
        io.out(`mode: ${String(now.mode)}`);
        return 0;
      }
      const [mode, ...redirects] = args;
      const body = redirects.length > 0 ? { mode, approved_redirects: redirects } : { mode };
      const set = await call(io, 'PATCH', '/admin/settings/dcr', body);
      if (!set) return 1;
      io.out(`mode: ${String(set.mode)}`);
      return 0;
    },
  },
];
