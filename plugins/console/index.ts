/**
 * The operator console at /admin/ui/ on the admin listener: a shell that signs in with the admin key once
 * per browser session and shows the pages every plugin contributes (types.ts). Its own pages: the hub's
 * status and notices, and backups.
 */
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/sdk.ts';
import { type ConsoleConfig, configSchema } from './config.ts';
import { mountConsole } from './routes.ts';
import { Sessions } from './sessions.ts';
import type { ConsoleExports, ConsolePage } from './types.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default definePlugin<ConsoleConfig, ConsoleExports>({
  name: 'console',
  version: '0.1.0',
  description: 'The operator console at /admin/ui/: every plugin contributes its pages.',
  configSchema,
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

    mountConsole(ctx.http.router('admin', { paths: ['/admin/ui'], body: false }), {
      sessions: new Sessions(ctx.config.sessionMinutes * 60_000),
      adminKey: ctx.adminKey,
      pages: () => [...pages.values()].sort((a, b) => (a.order ?? 50) - (b.order ?? 50)),
      listenerUrl: (name) => ctx.http.url(name),
      webDir: here('web/'),
    });
    return { exports: { addPage }, stop() {} };
  },
});
