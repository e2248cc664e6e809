/**
 * The hue plugin's `discovery` setting through the real config validator: its defaults (the mDNS group on
 * every interface), a unicast address and an interface accepted from the file or the environment, and bad
 * values refused with the setting's path.
 */
import { describe, expect, it } from 'vitest';
import { readConfigSources, validateConfig } from '../../core/config/load.ts';
import { ConfigError } from '../../core/config/types.ts';
import hue from '../../plugins/hue/index.ts';

const hueSlice = (overrides: Record<string, unknown>, env: Record<string, string> = {}) =>
  validateConfig(readConfigSources({ env, overrides: { plugins: { hue: overrides } } }), [hue]).plugins.hue;

/** Every problem the validator lists for a hue slice, as `<path> <message>` lines. */
function problems(overrides: Record<string, unknown>): string[] {
  try {
    hueSlice(overrides);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message.split('\n').sort();
  }
  throw new Error('the config was accepted');
}

describe('hue discovery setting', () => {
  it('defaults to the mDNS group and port on every interface', () => {
    expect(hueSlice({})?.discovery).toEqual({ interface: '', address: '224.0.0.251', port: 5353 });
  });

  it('takes an interface, a unicast address and a port from the file or HEARTH_* variables', () => {
    expect(hueSlice({ discovery: { interface: '192.168.10.2' } })?.discovery).toEqual({
      interface: '192.168.10.2',
      address: '224.0.0.251',
      port: 5353,
    });
    const env = {
      HEARTH_PLUGINS__HUE__DISCOVERY__ADDRESS: '127.0.0.1',
      HEARTH_PLUGINS__HUE__DISCOVERY__PORT: '5454',
    };
    expect(hueSlice({}, env)?.discovery).toEqual({ interface: '', address: '127.0.0.1', port: 5454 });
  });

  it('refuses addresses that are not IPv4, ports out of range and unknown keys, naming each', () => {
    const pattern = (p: string) => new RegExp(`^plugins\\.hue\\.discovery\\.${p} must match pattern`);
    const [address, unknown, iface, port] = problems({
      discovery: { address: 'mdns.local', interface: 'eth0', port: 70000, group: '224.0.0.251' },
    });
    expect(address).toMatch(pattern('address'));
    expect(iface).toMatch(pattern('interface'));
    expect(port).toBe('plugins.hue.discovery.port must be <= 65535');
    expect(unknown).toBe('plugins.hue.discovery.group is not a known setting');
    for (const bad of ['256.0.0.1', '224.0.0.0251', '10.0.0', '::1', ' 224.0.0.251', '']) {
      expect(problems({ discovery: { address: bad } })).toEqual([expect.stringMatching(pattern('address'))]);
    }
    expect(problems({ discovery: { port: 0 } })).toEqual(['plugins.hue.discovery.port must be >= 1']);
    expect(problems({ discovery: { port: 53.5 } })).toEqual(['plugins.hue.discovery.port must be integer']);
  });
});
