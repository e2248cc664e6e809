/**
 * The operator console at /admin/ui/ on the admin listener: a shell that signs in with the admin key once
 * per browser session and shows the pages every plugin contributes (types.ts). Its own pages: the hub's
 * status and notices, and backups.
 */
import { fileURLToPath } from 'node:url';
import { createPasswordHasher, definePlugin, type PasswordHasher, VERSION } from '../../core/sdk.ts';
import { addressesOf } from './addresses.ts';
import { mountOwnerAdmin } from './claim/admin-routes.ts';
import { Owner } from './claim/owner.ts';
import { mountClaim } from './claim/routes.ts';
import { statusCommand } from './commands.ts';
import { type ConsoleConfig, configSchema } from './config.ts';
import { announceHub } from './mdns/announce.ts';
import type { Responder } from './mdns/responder.ts';
import { mountConsole } from './routes.ts';
import { Sessions } from './sessions.ts';
import type { ConsoleExports, ConsolePage } from './types.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default definePlugin<ConsoleConfig, ConsoleExports>({
  name: 'console',
  version: '0.1.0',
  description: 'The operator console at /admin/ui/: every plugin contributes its pages.',
  configSchema,
  commands: [statusCommand],
  async start(ctx) {
    const pages = new Map<string, ConsolePage & { plugin: string }>();
    const addPage: ConsoleExports['addPage'] = (page) => {
      if (!/^[a-z0-9-]{1,40}$/.test(page.id))
        throw new Error(`console page id ${page.id} is not a-z, 0-9, -`);
      const taken = pages.get(page.id);
      if (taken && taken.plugin !== page.plugin) {
        throw new Error(`console page ${page.id} belongs to plugin ${taken.plugin}`);
      }
      pages.set(page.id, page);
    };
    addPage({ plugin: 'console', id: 'status', title: 'Status', module: here('pages/status.js'), order: 10 });
    addPage({
      plugin: 'console',
      id: 'metrics',
      title: 'Metrics',
      module: here('pages/metrics.js'),
      order: 15,
    });
    addPage({ plugin: 'console', id: 'log', title: 'Log', module: here('pages/log.js'), order: 85 });
    addPage({
      plugin: 'console',
      id: 'backups',
      title: 'Backups',
      module: here('pages/backups.js'),
      order: 90,
    });

    addPage({ plugin: 'console', id: 'setup', title: 'Set up', module: here('pages/setup.js'), order: 95 });

    const { owner, setupCode } = await Owner.open(ctx);
    const requireCode = ctx.config.claim.setupCode;
    const adminUrl = ctx.http.listeners().find((l) => l.name === 'admin')?.url;
    if (setupCode && adminUrl) {
      ctx.print(`Set up this hub from a browser on this network: ${addressesOf(adminUrl, '/')[0]}`);
    }
    if (setupCode) {
      ctx.print(
        `Setup code (asked before this hub can be set up${requireCode ? '' : ', when plugins.console.claim.setupCode is on'}): ${setupCode}`,
      );
    }
    // argon2 is made on the first sign-in or claim, not at start (it costs a hash).
    let hasher: Promise<PasswordHasher> | undefined;
    const passwords = () => {
      hasher ??= createPasswordHasher();
      return hasher;
    };
    const sessions = new Sessions(ctx.config.sessionMinutes * 60_000);
    const router = ctx.http.router('admin', { paths: ['/admin/ui'], body: false });
    mountClaim(router, {
      owner,
      sessions,
      passwords,
      requireCode,
      runToken: () => ctx.adminKey.runToken(),
      log: ctx.log,
    });
    mountConsole(router, {
      sessions,
      adminKey: ctx.adminKey,
      pages: () => [...pages.values()].sort((a, b) => (a.order ?? 50) - (b.order ?? 50)),
      listenerUrl: (name) => ctx.http.url(name),
      webDir: here('web/'),
      owner,
      passwords,
    });
    const listenerUrl = (name: string) => ctx.http.listeners().find((l) => l.name === name)?.url ?? null;
    mountOwnerAdmin(ctx.http.router('admin', { prefix: '/admin/console' }), {
      owner,
      passwords,
      requireCode,
      listenerUrl,
    });
    // `http://<hub>:9001/` leads to the console.
    ctx.http.router('admin', { paths: ['/'] }).get('/', (c) => {
      if (c.path === '/') c.redirect('/admin/ui/');
    });

    let responder: Responder | null = null;
    const ports = new Map(ctx.http.listeners().map((l) => [l.name, l.port]));
    if (ctx.config.announce.enabled && ports.has('admin') && ports.has('main')) {
      responder = announceHub({
        target: ctx.config.announce,
        version: VERSION,
        consolePort: ports.get('admin') as number,
        householdPort: ports.get('main') as number,
        log: ctx.log,
      });
    }
    return {
      exports: { addPage },
      async stop() {
        await responder?.stop();
      },
    };
  },
});
