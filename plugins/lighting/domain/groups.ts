/** Group level and toggle rules (docs/lighting.md#the-designed-methods; deCONZ any_on semantics). */
import type { LightLevel } from '../../../drivers/lighting/index.ts';

export interface MemberLevel {
  _id: string;
  level: LightLevel;
  lastOnBri: number;
}

/** A group is on when any member is on; its bri is the brightest member's. */
export function groupLevel(members: MemberLevel[]): LightLevel {
  const bri = members.reduce((max, m) => (m.level.on ? Math.max(max, m.level.bri) : max), 0);
  return { on: bri > 0, bri };
}

/**
 * Toggle: if any member is on, all go off; otherwise every member goes on at its last non-zero
 * brightness (255 when it never had one).
 */
export function togglePlan(members: MemberLevel[]): Array<{ _id: string; level: LightLevel }> {
  const anyOn = members.some((m) => m.level.on);
  return members.map((m) => ({
    _id: m._id,
    level: anyOn ? { on: false, bri: 0 } : { on: true, bri: m.lastOnBri > 0 ? m.lastOnBri : 255 },
  }));
}
