import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const unit = path.join(root, 'systemd/hearth.service');

describe('packaging', () => {
  it('the systemd unit passes systemd-analyze verify', () => {
    const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
    expect(analyze, 'systemd-analyze is installed by .ci/run').toBeDefined();
    const r = spawnSync(analyze as string, ['verify', unit], { encoding: 'utf8' });
    expect(r.stderr.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('the unit is a hardened notify service with a watchdog and serial access', () => {
    const text = readFileSync(unit, 'utf8');
    for (const line of [
      'Type=notify',
      'NotifyAccess=all',
      'WatchdogSec=30',
      'Restart=on-failure',
      'User=hearth',
      'StateDirectory=hearth',
      'SupplementaryGroups=dialout',
      'ProtectSystem=strict',
      'NoNewPrivileges=yes',
      'Environment=HEARTH_DATA_DIR=/var/lib/hearth',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('install.sh is valid bash and checks the Node version', () => {
    const script = path.join(root, 'scripts/install.sh');
    expect(spawnSync('bash', ['-n', script]).status).toBe(0);
    expect(readFileSync(script, 'utf8')).toContain('MIN_NODE=20.19.0');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe('>=20.19');
  });
});
