import { createHueDriver } from '../../drivers/hue/driver.ts';
import { describeDriverConformance } from '../drivers/conformance.ts';
import { bridgeWithKey, ids } from './helpers.ts';

describeDriverConformance('hue (simulated bridge)', async () => {
  const { bridge, options } = await bridgeWithKey();
  return {
    factory: createHueDriver,
    options,
    light: ids.light(1),
    reports: true,
    async pressButton() {
      bridge.pressButton(1, 'short_release');
      return { protocolid: ids.dimmer, event: '1_short_release' };
    },
    dropLink: () => bridge.stop(),
    restoreLink: () => bridge.resume(),
    teardown: () => bridge.stop(),
  };
});
