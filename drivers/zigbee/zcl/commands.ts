/**
 * Cluster-specific commands for lights, and what a remote's commands mean as sensor events.
 * Transition times are in tenths of a second (ZCL r7 §3.10.2.4.1).
 */
import { Cluster, ColorCmd, GroupsCmd, LevelCmd, OnOffCmd, ScenesCmd } from './clusters.ts';

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(Math.max(0, Math.min(0xffff, Math.round(n))));
  return b;
};

/** Seconds to the ZCL transition unit (1/10 s); absent: 0xFFFF, the device's own default. */
export const transitionTenths = (seconds?: number): number =>
  seconds === undefined ? 0xffff : Math.max(0, Math.min(0xfffe, Math.round(seconds * 10)));

export interface ClusterCommand {
  cluster: number;
  command: number;
  payload: Buffer;
}

export const onOff = (on: boolean): ClusterCommand => ({
  cluster: Cluster.ON_OFF,
  command: on ? OnOffCmd.ON : OnOffCmd.OFF,
  payload: Buffer.alloc(0),
});

/** Move to level with on/off: level 1..254, so a dimmed light is on and level 0 is never sent. */
export const moveToLevelWithOnOff = (level: number, transition?: number): ClusterCommand => ({
  cluster: Cluster.LEVEL,
  command: LevelCmd.MOVE_TO_LEVEL_ON_OFF,
  payload: Buffer.concat([
    Buffer.of(Math.max(1, Math.min(254, Math.round(level)))),
    u16(transitionTenths(transition)),
  ]),
});

/** Colour temperature in mirek (ZCL r7 §5.2.2.3.14). */
export const moveToColorTemp = (mirek: number, transition?: number): ClusterCommand => ({
  cluster: Cluster.COLOR,
  command: ColorCmd.MOVE_TO_COLOR_TEMP,
  payload: Buffer.concat([u16(mirek), u16(transitionTenths(transition))]),
});

/** CIE xy, each scaled to 0..65279 (ZCL r7 §5.2.2.3.11). */
export const moveToXy = (x: number, y: number, transition?: number): ClusterCommand => ({
  cluster: Cluster.COLOR,
  command: ColorCmd.MOVE_TO_XY,
  payload: Buffer.concat([u16(x), u16(y), u16(transitionTenths(transition))]),
});

/** Groups: add group `id` with an empty name (a zero-length string). */
export const addGroup = (id: number): ClusterCommand => ({
  cluster: Cluster.GROUPS,
  command: GroupsCmd.ADD,
  payload: Buffer.concat([u16(id), Buffer.of(0)]),
});

export const removeGroup = (id: number): ClusterCommand => ({
  cluster: Cluster.GROUPS,
  command: GroupsCmd.REMOVE,
  payload: u16(id),
});

/** The status and group id of an add/remove group response. */
export function groupResponse(payload: Buffer): { status: number; group: number } | null {
  return payload.length >= 3 ? { status: payload[0] as number, group: payload.readUInt16LE(1) } : null;
}

/**
 * A command a remote or switch sends (client → server) as a sensor event name, e.g. `on`, `off`,
 * `toggle`, `brightness_up`, `brightness_down`, `brightness_stop`, `recall_scene_3`; null when not a
 * button.
 */
export function remoteEvent(cluster: number, command: number, payload: Buffer): string | null {
  if (cluster === Cluster.ON_OFF) {
    if (command === OnOffCmd.OFF) return 'off';
    if (command === OnOffCmd.ON) return 'on';
    if (command === OnOffCmd.TOGGLE) return 'toggle';
    return null;
  }
  if (cluster === Cluster.LEVEL) {
    const mode = payload[0] ?? 0;
    const dir = mode === 0 ? 'up' : 'down';
    switch (command) {
      case LevelCmd.MOVE:
      case LevelCmd.MOVE_ON_OFF:
        return `brightness_move_${dir}`;
      case LevelCmd.STEP:
      case LevelCmd.STEP_ON_OFF:
        return `brightness_step_${dir}`;
      case LevelCmd.STOP:
      case LevelCmd.STOP_ON_OFF:
        return 'brightness_stop';
      default:
        return null;
    }
  }
  if (cluster === Cluster.SCENES && command === ScenesCmd.RECALL && payload.length >= 3) {
    return `recall_scene_${payload[2]}`;
  }
  return null;
}
