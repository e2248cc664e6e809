/**
 * V8 CPU profiles (`node --cpu-prof`) as the profile tools under scripts/bench read them: the nodes by id,
 * each node's caller, and the self time of every node within a window of the run.
 */
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface LoadedProfile extends CpuProfile {
  byId: Map<number, ProfileNode>;
  /** The caller of each node (absent for the root). */
  parent: Map<number, number>;
}

export function readProfile(file: string): LoadedProfile {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  return { ...p, byId, parent };
}

/**
 * Self time in µs per node of the samples taken between `fromUs` and `toUs`, with the idle samples counted
 * apart. The window is in µs from the profile's start, or in the profile's own clock (`startTime` and on,
 * as the benches print it) when `clock` is 'profile'.
 */
export function selfTimes(
  p: LoadedProfile,
  fromUs: number,
  toUs: number,
  clock: 'start' | 'profile' = 'start',
): { self: Map<number, number>; busyUs: number; idleUs: number } {
  const self = new Map<number, number>();
  let at = clock === 'profile' ? p.startTime : 0;
  let busyUs = 0;
  let idleUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at < fromUs || at > toUs) continue;
    const id = p.samples[i] as number;
    if (p.byId.get(id)?.callFrame.functionName === '(idle)') {
      idleUs += dt;
      continue;
    }
    busyUs += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
  }
  return { self, busyUs, idleUs };
}
