/**
 * A relay announced as a Home Assistant MQTT `switch`, the way ESPHome does it: the retained config on
 * `homeassistant/switch/<node>/relay/config` (abbreviated keys), plain `ON`/`OFF` commands on `~/command`,
 * the retained state on `~/state`, presence on `~/status` (last will `offline`).
 */
import {
  answer,
  connected,
  connectSim,
  extend,
  type SimDevice,
  type SimOptions,
  simDevice,
} from './common.ts';

export interface HaSwitch extends SimDevice {
  readonly on: boolean;
}

export async function startHaSwitch(opts: SimOptions & { node: string }): Promise<HaSwitch> {
  const base = `esphome/${opts.node}/switch/relay`;
  const status = `esphome/${opts.node}/status`;
  const client = connectSim(opts, `${opts.node}-relay`, { topic: status, payload: 'offline', retain: true });
  const sim = simDevice(client);
  let on = false;
  const publishState = () => client.publishAsync(`${base}/state`, on ? 'ON' : 'OFF', { retain: true });
  client.on('connect', () => {
    client.subscribe(`${base}/command`);
    client.publish(status, 'online', { retain: true });
    client.publish(
      `homeassistant/switch/${opts.node}/relay/config`,
      JSON.stringify({
        '~': base,
        name: `Relay ${opts.node}`,
        uniq_id: `${opts.node}-relay`,
        cmd_t: '~/command',
        stat_t: '~/state',
        avty_t: status,
        dev: { ids: [opts.node], name: opts.node },
      }),
      { retain: true },
    );
    answer(publishState());
  });
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    sim.record({ topic, payload: text, retain: packet.retain });
    if (text === 'ON' || text === 'OFF') on = text === 'ON';
    answer(publishState());
  });
  await connected(client);
  return extend(sim, {
    get on() {
      return on;
    },
  });
}
