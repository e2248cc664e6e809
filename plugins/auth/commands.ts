/** `hearth auth ...` subcommands; each calls the admin API of the running hub (admin/*.ts). */
import type { CliCommand, CliIo } from '../../core/plugin/types.ts';

const detailOf = (body: unknown) =>
  typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : JSON.stringify(body);

async function call(
  io: CliIo,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown> | null> {
  const res = await io.admin.request(method, path, body);
  if (res.status >= 400) {
    io.err(`error: ${detailOf(res.body)} (HTTP ${res.status})`);
    return null;
  }
  return (res.body ?? {}) as Record<string, unknown>;
}

/** `--name value` options and the remaining words. */
function options(args: string[]): { opts: Map<string, string | true>; rest: string[] } {
  const opts = new Map<string, string | true>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) rest.push(a);
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('--')) opts.set(a.slice(2), args[++i]!);
    else opts.set(a.slice(2), true);
  }
  return { opts, rest };
}

const usage = (io: CliIo, text: string) => {
  io.err(`usage: ${text}`);
  return 2;
};

export const authCommands: CliCommand[] = [
  {
    name: 'auth user add',
    usage: 'hearth auth user add <email> <name> [--admin]   (password in HEARTH_PASSWORD)',
    summary: 'Creates a person who can sign in (password from HEARTH_PASSWORD, never from the command line)',
    async run(args, io) {
      const { opts, rest } = options(args);
      const password = process.env.HEARTH_PASSWORD;
      if (rest.length < 2 || !password) return usage(io, this.usage);
      const user = await call(io, 'POST', '/admin/users', {
        email: rest[0],
        name: rest.slice(1).join(' '),
        password,
        role: opts.has('admin') ? 'admin' : 'user',
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
    async run(args, io) {
      const { opts, rest } = options(args);
      const site = opts.get('site');
      if (rest.length === 0 || typeof site !== 'string') return usage(io, this.usage);
      const scope = opts.get('scope');
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
    async run(args, io) {
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
