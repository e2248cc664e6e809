import { fileURLToPath } from 'node:url';
import type { ConsoleExports } from '../console/types.ts';

/** The authorization server's pages of the operator console (each calls the admin API of this plugin). */
const PAGES = [
  { id: 'auth-clients', title: 'OAuth clients', file: 'clients.js' },
  { id: 'auth-users', title: 'Users', file: 'users.js' },
  { id: 'auth-resources', title: 'Resources and policies', file: 'resources.js' },
  { id: 'auth-fronting', title: 'Fronting links', file: 'fronting.js' },
  { id: 'auth-federation', title: 'Identity providers', file: 'federation.js' },
  { id: 'auth-providers', title: 'Upstream providers', file: 'providers.js' },
  { id: 'auth-activity', title: 'Tokens and audit', file: 'activity.js' },
  { id: 'auth-server', title: 'Auth server', file: 'server.js' },
];

export function addConsolePages(console: ConsoleExports | undefined): void {
  PAGES.forEach((p, n) => {
    console?.addPage({
      plugin: 'auth',
      id: p.id,
      title: p.title,
      module: fileURLToPath(new URL(`./console/${p.file}`, import.meta.url)),
      order: 50 + n,
    });
  });
}
