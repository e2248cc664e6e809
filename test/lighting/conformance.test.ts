/** The shared driver conformance suite against the built-in virtual driver and the test driver. */
import { createVirtualDriver } from '../../plugins/lighting/drivers/virtual.ts';
import { describeDriverConformance } from '../drivers/conformance.ts';
import { testDriverType } from './test-driver.ts';

describeDriverConformance('virtual', async () => ({
  factory: createVirtualDriver,
  options: { devices: [{ protocolid: 'v1', kind: 'dimmable' }] },
  light: 'v1',
  reports: true,
}));

describeDriverConformance('test driver', async () => {
  const { factory, instances } = testDriverType();
  return {
    factory,
    options: {
      devices: [
        { protocolid: 'd1', kind: 'dimmable' },
        { protocolid: 'b1', kind: 'sensor', events: ['1'] },
      ],
    },
    light: 'd1',
    reports: true,
    async pressButton() {
      instances.get('conf')!.press('b1', '1');
      return { protocolid: 'b1', event: '1' };
    },
    async dropLink() {
      instances.get('conf')!.setConnected(false);
    },
    async restoreLink() {
      instances.get('conf')!.setConnected(true);
    },
  };
});
