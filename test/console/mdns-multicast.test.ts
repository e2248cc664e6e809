/**
 * The announcement over a real multicast group: a network namespace of the test's own (`unshare -rn`, so
 * nothing reaches the machine's networks) whose loopback carries multicast (`ip link set lo multicast on`
 * and a route for 224.0.0.0/4), where a hub announces on 224.0.0.251:5353 and a multicast-dns client on the
 * same group and port browses `_http._tcp.local` as a phone does. It needs user namespaces (root, or a
 * kernel that lets users make them), which the machines the suite runs on have.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { VERSION } from '../../core/version.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./netns/mdns-browse.ts', import.meta.url));

it('a multicast-dns client browsing _http._tcp.local on 224.0.0.251:5353 finds the console and the household app', async () => {
  const { stdout } = await run(
    'unshare',
    [
      '-rn',
      'sh',
      '-c',
      'ip link set lo up multicast on && ip route add 224.0.0.0/4 dev lo && exec "$0" --import tsx "$1"',
      process.execPath,
      script,
    ],
    { timeout: 60_000 },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
    adminPort: number;
    mainPort: number;
    services: Record<string, { port: number; txt: string[] }>;
  };
  expect(result.services).toEqual({
    'Hearth console._http._tcp.local': {
      port: result.adminPort,
      txt: ['role=console', 'path=/admin/ui/', `version=${VERSION}`],
    },
    'Hearth household._http._tcp.local': {
      port: result.mainPort,
      txt: ['role=household', 'path=/', `version=${VERSION}`],
    },
  });
}, 90_000);
