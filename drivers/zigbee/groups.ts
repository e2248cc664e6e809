/**
 * Hearth groups as Zigbee groups (docs/zigbee.md#groups): before a whole-group command the members are
 * brought into the group's Zigbee group (add group / remove group, each answered by the device), then
 * one groupcast replaces one unicast per light. A member that cannot be removed makes the group move to a
 * fresh Zigbee group id, so a device that still listens to the old id never gets the group's commands.
 */
import type { GroupTarget, LightCommand, LightTarget } from '../lighting/index.ts';
import { briToLevel254 } from '../lighting/index.ts';
import type { ZigbeeGroupRecord, ZigbeeStateStore } from './device.ts';
import type { Destination } from './radio.ts';
import { Cluster, ZclStatus } from './zcl/clusters.ts';
import {
  addGroup,
  type ClusterCommand,
  groupResponse,
  moveToLevelWithOnOff,
  onOff,
  removeGroup,
} from './zcl/commands.ts';
import type { ZclClient } from './zcl-client.ts';

export interface GroupDeps {
  store: ZigbeeStateStore;
  zcl: ZclClient;
  /** Where a member is and what its endpoint serves; null for a device the driver no longer knows. */
  member(protocolid: string): { dest: Destination; inClusters: number[] } | null;
  /** The per-light path, for members that cannot take part in the group. */
  single(protocolid: string, cmd: LightCommand, light: LightTarget): Promise<void>;
}

/** Group ids 0x0001..0xFFF7; 0x0000 and the top of the range are left alone. */
const MAX_GROUP_ID = 0xfff7;

function nextGroupId(store: ZigbeeStateStore): number {
  const used = new Set(store.groups().map((g) => g.zigbeeId));
  const top = Math.max(0, ...used);
  if (top < MAX_GROUP_ID) return top + 1;
  for (let id = 1; id <= MAX_GROUP_ID; id++) if (!used.has(id)) return id;
  throw new Error('no free Zigbee group id');
}

const answered = (payload: Buffer, group: number, ok: number[]): boolean => {
  const r = groupResponse(payload);
  return !!r && r.group === group && ok.includes(r.status);
};

/** Makes the Zigbee group hold exactly the members that can take part; returns those in it. */
async function sync(
  deps: GroupDeps,
  group: GroupTarget,
  wanted: string[],
): Promise<{ rec: ZigbeeGroupRecord; failed: string[] }> {
  const known = deps.store.groups().find((g) => g.id === group.id);
  let rec: ZigbeeGroupRecord = known
    ? structuredClone(known)
    : { id: group.id, zigbeeId: nextGroupId(deps.store), members: [] };
  const want = new Set(wanted);
  for (const p of rec.members.filter((m) => !want.has(m))) {
    const m = deps.member(p);
    if (!m) continue; // gone from the network: nothing to take out
    const ok = await deps.zcl
      .request(m.dest, removeGroup(rec.zigbeeId))
      .then((f) => answered(f.payload, rec.zigbeeId, [ZclStatus.SUCCESS, ZclStatus.NOT_FOUND]))
      .catch(() => false);
    if (!ok) {
      rec = { id: group.id, zigbeeId: nextGroupId(deps.store), members: [] };
      break;
    }
  }
  rec.members = rec.members.filter((p) => want.has(p));
  const failed: string[] = [];
  for (const p of wanted) {
    if (rec.members.includes(p)) continue;
    const m = deps.member(p);
    const ok =
      !!m &&
      (await deps.zcl
        .request(m.dest, addGroup(rec.zigbeeId))
        .then((f) => answered(f.payload, rec.zigbeeId, [ZclStatus.SUCCESS, ZclStatus.DUPLICATE_EXISTS]))
        .catch(() => false));
    if (ok) rec.members.push(p);
    else failed.push(p);
  }
  if (!known || JSON.stringify(known) !== JSON.stringify(rec)) await deps.store.putGroup(rec);
  return { rec, failed };
}

/** The groupcasts for `cmd`, or null when the members need different frames (then each gets its own). */
function groupFrames(cmd: LightCommand, members: Array<{ dims: boolean }>): ClusterCommand[] | null {
  if (!cmd.on || cmd.bri <= 0) return [onOff(false)];
  const dimmers = members.filter((m) => m.dims).length;
  if (dimmers === 0) return [onOff(true)];
  const level = moveToLevelWithOnOff(briToLevel254(cmd.bri), cmd.transition);
  if (dimmers === members.length) return [level];
  // Mixed: at full brightness every member is simply on; anything else would dim a switch-only light.
  return cmd.bri >= 255 ? [level, onOff(true)] : null;
}

export async function setGroupState(deps: GroupDeps, group: GroupTarget, cmd: LightCommand): Promise<void> {
  const light = new Map(group.members.map((m) => [m.protocolid, m.light]));
  const groupable: string[] = [];
  const single: string[] = [];
  for (const m of group.members) {
    const found = deps.member(m.protocolid);
    if (found?.inClusters.includes(Cluster.GROUPS)) groupable.push(m.protocolid);
    else single.push(m.protocolid);
  }
  const { rec, failed } = await sync(deps, group, groupable);
  single.push(...failed);
  const inGroup = rec.members.map((p) => ({
    p,
    dims: light.get(p)?.type !== 'binary' && !!deps.member(p)?.inClusters.includes(Cluster.LEVEL),
  }));
  const frames = inGroup.length ? groupFrames(cmd, inGroup) : [];
  if (frames) for (const f of frames) await deps.zcl.groupcast(rec.zigbeeId, f);
  else single.push(...inGroup.map((m) => m.p));
  for (const p of single) await deps.single(p, cmd, light.get(p) ?? { type: 'dimmable' });
}
