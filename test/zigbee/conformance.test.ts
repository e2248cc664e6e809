/**
 * The shared lighting-driver conformance suite against the zigbee driver and the simulated coordinator
 * (a socat PTY pair), once on a Z-Stack stick and once on a Silicon Labs (EZSP) stick. The network is formed and the devices paired once per subject by a first driver run
 * sharing the store, so the suite's driver resumes a known network, as after a restart.
 */
import pino from 'pino';
import { HUE_GAMUT_C } from '../../drivers/lighting/index.ts';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import { createZigbeeDriverFactory, type ZigbeeDriver } from '../../drivers/zigbee/driver.ts';
import { describeDriverConformance, RecordingSink } from '../drivers/conformance.ts';
import { fastOptions, PID, pairAll, STICKS } from './sim-helpers.ts';

for (const stick of STICKS)
  describeDriverConformance(
    `zigbee: ${stick.kind === 'znp' ? 'Z-Stack coordinator' : 'Silicon Labs (EZSP) stick'} simulated on a PTY`,
    async () => {
      const sim = await stick.start({ blank: true });
      const store = memoryStateStore();
      const factory = createZigbeeDriverFactory({ store });
      const first = factory({
        id: 'pairing',
        options: fastOptions(sim.path),
        sink: new RecordingSink(),
        log: pino({ level: 'silent' }),
        signal: new AbortController().signal,
      }) as ZigbeeDriver;
      await first.start();
      await pairAll(sim, first, ['colourBulb', 'remote']);
      await first.stop();
      sim.coordinator.powerCycle();
      return {
        factory,
        options: fastOptions(sim.path),
        light: PID.colourBulb,
        colourLight: {
          protocolid: PID.colourBulb,
          capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: HUE_GAMUT_C } },
          received: () => sim.coordinator.devices.get('colourBulb')?.colourCommands ?? [],
        },
        reports: true,
        async pressButton() {
          sim.press('on');
          return { protocolid: PID.remote, event: 'on' };
        },
        dropLink: () => sim.unplug(),
        restoreLink: () => sim.replug(),
        teardown: () => sim.stop(),
      };
    },
  );
