import { Hub } from '../hub.ts';
import { RunFile } from '../lifecycle/run-file.ts';
import type { AdminClient } from '../plugin/types.ts';
import type { Loaded } from './boot.ts';

export interface AdminSession {
  admin: AdminClient;
  /** True when no hub was running and a temporary one on loopback serves the command. */
  temporary: boolean;
  close(): Promise<void>;
}

function clientFor(baseUrl: string, token: string): AdminClient {
  return {
    async request(method, path, body) {
      const init: RequestInit = { method, headers: { authorization: `Bearer ${token}` } };
      if (body instanceof Uint8Array) {
        init.body = new Blob([body as Uint8Array<ArrayBuffer>]);
        (init.headers as Record<string, string>)['content-type'] = 'application/gzip';
      } else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await fetch(new URL(path, baseUrl), init);
      const type = res.headers.get('content-type') ?? '';
      const parsed: unknown = type.includes('json')
        ? await res.json()
        : type.includes('gzip')
          ? new Uint8Array(await res.arrayBuffer())
          : await res.text();
      return { status: res.status, body: parsed };
    },
  };
}

async function reachable(baseUrl: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/admin/auth/verify', baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(3000),
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Data-changing commands go through the running hub's admin API (two writers would corrupt the lowdb
 * files). With no hub running, a temporary hub on loopback, without MQTT, serves the same API.
 */
export async function openAdmin(loaded: Loaded, err: (line: string) => void): Promise<AdminSession> {
  const run = new RunFile(loaded.config.dataDir).read();
  if (run && (await reachable(run.adminUrl, run.controlToken))) {
    return { admin: clientFor(run.adminUrl, run.controlToken), temporary: false, close: async () => {} };
  }
  const config = structuredClone(loaded.config);
  config.host = '127.0.0.1';
  config.http.main = { port: 0 };
  config.http.admin = { port: 0 };
  config.mqtt.enabled = false;
  config.mqtt.external = null;
  config.log.level = 'warn';
  for (const slice of Object.values(config.plugins)) if (typeof slice.port === 'number') slice.port = 0;
  const hub = new Hub({
    config,
    plugins: loaded.plugins,
    adminKey: process.env.HEARTH_ADMIN_KEY,
    logStream: process.stderr,
    // First-run secrets still reach the operator; the temporary hub's URLs would mislead.
    banner: 'secrets',
    print: err,
  });
  const info = await hub.start();
  return {
    admin: clientFor(info.urls.admin as string, info.controlToken),
    temporary: true,
    close: () => hub.stop(),
  };
}
