/**
 * The simulated bridge's resources, in CLIP v2's shapes (docs/hue.md#the-resources): a few lights, a room
 * holding them all, a zone holding two, a scene, a dimmer switch (four buttons), a tap dial (a rotary),
 * a motion sensor and a contact sensor. Ids are stable per index so tests can name them.
 */
export type Resource = { id: string; type: string } & Record<string, unknown>;

const uuid = (kind: number, n: number) =>
  `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const ids = {
  light: (n: number) => uuid(1, n),
  lightDevice: (n: number) => uuid(2, n),
  room: uuid(3, 1),
  roomGroup: uuid(4, 1),
  zone: uuid(3, 2),
  zoneGroup: uuid(4, 2),
  scene: uuid(5, 1),
  dimmer: uuid(6, 1),
  dimmerButton: (n: number) => uuid(7, n),
  dial: uuid(6, 2),
  dialRotary: uuid(8, 1),
  motionDevice: uuid(6, 3),
  motion: uuid(9, 1),
  contactDevice: uuid(6, 4),
  contact: uuid(10, 1),
  bridgeDevice: uuid(6, 0),
};

const GAMUT_C = { red: { x: 0.6915, y: 0.3083 }, green: { x: 0.17, y: 0.7 }, blue: { x: 0.1532, y: 0.0475 } };

export function buildResources(lightCount: number): Resource[] {
  const out: Resource[] = [];
  const lightRefs = [];
  for (let n = 1; n <= lightCount; n++) {
    const name = `Hue light ${n}`;
    out.push({
      id: ids.lightDevice(n),
      type: 'device',
      metadata: { name, archetype: 'sultan_bulb' },
      services: [{ rid: ids.light(n), rtype: 'light' }],
    });
    out.push({
      id: ids.light(n),
      id_v1: `/lights/${n}`,
      type: 'light',
      owner: { rid: ids.lightDevice(n), rtype: 'device' },
      metadata: { name, archetype: 'sultan_bulb' },
      on: { on: false },
      dimming: { brightness: 100, min_dim_level: 0.2 },
      color_temperature: {
        mirek: 366,
        mirek_valid: true,
        mirek_schema: { mirek_minimum: 153, mirek_maximum: 500 },
      },
      color: { xy: { x: 0.4573, y: 0.41 }, gamut: GAMUT_C, gamut_type: 'C' },
      dynamics: { duration: 0 },
    });
    lightRefs.push({ rid: ids.lightDevice(n), rtype: 'device' });
  }
  const group = (id: string, owner: string, rtype: string) => ({
    id,
    type: 'grouped_light',
    owner: { rid: owner, rtype },
    on: { on: false },
    dimming: { brightness: 0 },
  });
  out.push({
    id: ids.room,
    type: 'room',
    metadata: { name: 'Living room', archetype: 'living_room' },
    children: lightRefs,
    services: [{ rid: ids.roomGroup, rtype: 'grouped_light' }],
  });
  out.push(group(ids.roomGroup, ids.room, 'room'));
  out.push({
    id: ids.zone,
    type: 'zone',
    metadata: { name: 'Reading corner', archetype: 'reading' },
    children: [1, 2].filter((n) => n <= lightCount).map((n) => ({ rid: ids.light(n), rtype: 'light' })),
    services: [{ rid: ids.zoneGroup, rtype: 'grouped_light' }],
  });
  out.push(group(ids.zoneGroup, ids.zone, 'zone'));
  out.push({
    id: ids.scene,
    type: 'scene',
    metadata: { name: 'Relax' },
    group: { rid: ids.room, rtype: 'room' },
    actions: Array.from({ length: lightCount }, (_, i) => ({
      target: { rid: ids.light(i + 1), rtype: 'light' },
      action: { on: { on: true }, dimming: { brightness: 40 }, color_temperature: { mirek: 447 } },
    })),
    status: { active: 'inactive' },
  });
  const buttons = [1, 2, 3, 4].map((n) => ({ rid: ids.dimmerButton(n), rtype: 'button' }));
  out.push({ id: ids.dimmer, type: 'device', metadata: { name: 'Dimmer switch' }, services: buttons });
  for (const n of [1, 2, 3, 4]) {
    out.push({
      id: ids.dimmerButton(n),
      type: 'button',
      owner: { rid: ids.dimmer, rtype: 'device' },
      metadata: { control_id: n },
      button: {},
    });
  }
  out.push({
    id: ids.dial,
    type: 'device',
    metadata: { name: 'Tap dial' },
    services: [{ rid: ids.dialRotary, rtype: 'relative_rotary' }],
  });
  out.push({
    id: ids.dialRotary,
    type: 'relative_rotary',
    owner: { rid: ids.dial, rtype: 'device' },
    relative_rotary: {},
  });
  out.push({
    id: ids.motionDevice,
    type: 'device',
    metadata: { name: 'Hall motion' },
    services: [{ rid: ids.motion, rtype: 'motion' }],
  });
  out.push({
    id: ids.motion,
    type: 'motion',
    owner: { rid: ids.motionDevice, rtype: 'device' },
    enabled: true,
    motion: { motion: false, motion_valid: true },
  });
  out.push({
    id: ids.contactDevice,
    type: 'device',
    metadata: { name: 'Front door' },
    services: [{ rid: ids.contact, rtype: 'contact' }],
  });
  out.push({
    id: ids.contact,
    type: 'contact',
    owner: { rid: ids.contactDevice, rtype: 'device' },
    enabled: true,
    contact_report: { state: 'contact', changed: new Date(0).toISOString() },
  });
  return out;
}
