import { createHueDriver } from '../../drivers/hue/driver.ts';
import { HUE_GAMUT_C } from '../../drivers/lighting/index.ts';
import { describeDriverConformance } from '../drivers/conformance.ts';
import { bridgeWithKey, ids } from './helpers.ts';

describeDriverConformance('hue (simulated bridge)', async () => {
  const { bridge, options } = await bridgeWithKey();
  return {
    factory: createHueDriver,
    options,
    light: ids.light(1),
    // the simulated bridge's lights are gamut-C colour bulbs (153–500 mirek)
    colourLight: {
      protocolid: ids.light(2),
      capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: HUE_GAMUT_C } },
      received: () => bridge.colourCommands(ids.light(2)),
    },
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
