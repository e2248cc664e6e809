/**
 * Undo records for one change of a JSON document. A commit snapshots the document, runs its change, and keeps
 * only what differs; if the write then fails, exactly those places are put back. Other changes made meanwhile
 * (coalesced updates elsewhere in the document) stay. Objects that existed before the change keep their
 * identity when put back, so references a plugin holds into the data (indexes by id) stay valid.
 */

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** A deep copy of the document that remembers which live object each copied object came from. */
export interface Snapshot {
  readonly root: Container;
  readonly originOf: WeakMap<object, object>;
}

/** One place that changed: `path` leads from the root to it; `had` false means the key did not exist. */
interface UndoOp {
  path: string[];
  had: boolean;
  old: Json;
}

export interface Undo {
  readonly ops: readonly UndoOp[];
  readonly originOf: WeakMap<object, object>;
}

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;
const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** Sets a key as an own property even when it is named `__proto__` (plain assignment would set the prototype). */
function setOwn(target: Container, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function copy(value: Json, originOf: WeakMap<object, object>): Json {
  if (!isContainer(value)) return value;
  if (Array.isArray(value)) {
    const out = new Array<Json>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], originOf);
    originOf.set(out, value);
    return out;
  }
  const out: Record<string, Json> = {};
  for (const k of Object.keys(value)) {
    const v = copy((value as Record<string, Json>)[k], originOf);
    // Plain assignment is several times faster; only `__proto__` needs a defined property.
    if (k === '__proto__') setOwn(out, k, v);
    else out[k] = v;
  }
  originOf.set(out, value);
  return out;
}

export function takeSnapshot(data: object): Snapshot {
  const originOf = new WeakMap<object, object>();
  return { root: copy(data, originOf) as Container, originOf };
}

/** `path` is one stack shared by the whole walk: copied only when a difference is recorded. */
function diff(before: Json, after: Json, path: string[], out: UndoOp[]): void {
  if (isContainer(before) && isContainer(after)) {
    const sameShape =
      Array.isArray(before) === Array.isArray(after) &&
      (!Array.isArray(before) || before.length === (after as Json[]).length);
    if (sameShape) {
      const b = before as Record<string, Json>;
      const a = after as Record<string, Json>;
      for (const k of Object.keys(b)) {
        path.push(k);
        if (!hasOwn(a, k)) out.push({ path: [...path], had: true, old: b[k] });
        else if (b[k] !== a[k]) diff(b[k], a[k], path, out);
        path.pop();
      }
      for (const k of Object.keys(a))
        if (!hasOwn(b, k)) out.push({ path: [...path, k], had: false, old: undefined });
      return;
    }
  } else if (Object.is(before, after)) return;
  out.push({ path: [...path], had: true, old: before });
}

/** What the change did, as the places to put back. Cost: one walk over both versions. */
export function undoFor(snapshot: Snapshot, data: object): Undo {
  const ops: UndoOp[] = [];
  diff(snapshot.root, data, [], ops);
  return { ops, originOf: snapshot.originOf };
}

/** The live value for a snapshot value: a copied object becomes its original again, put back as it was. */
function revive(value: Json, originOf: WeakMap<object, object>): Json {
  if (!isContainer(value)) return value;
  const live = (originOf.get(value) ?? (Array.isArray(value) ? [] : {})) as Container;
  if (Array.isArray(value)) {
    const arr = live as Json[];
    arr.length = value.length;
    for (let i = 0; i < value.length; i++) arr[i] = revive(value[i], originOf);
    return arr;
  }
  const obj = live as Record<string, Json>;
  for (const k of Object.keys(obj)) if (!hasOwn(value, k)) delete obj[k];
  for (const k of Object.keys(value)) setOwn(obj, k, revive((value as Record<string, Json>)[k], originOf));
  return obj;
}

/** Puts back what `undo` recorded. A place whose parent no longer exists (removed since) is skipped. */
export function applyUndo(data: object, undo: Undo): void {
  for (const op of undo.ops) {
    if (op.path.length === 0) {
      revive(op.old, undo.originOf);
      continue;
    }
    let parent: Json = data;
    for (const k of op.path.slice(0, -1)) {
      parent = isContainer(parent) && hasOwn(parent, k) ? (parent as Record<string, Json>)[k] : undefined;
    }
    if (!isContainer(parent)) continue;
    const key = op.path[op.path.length - 1] as string;
    if (op.had) setOwn(parent, key, revive(op.old, undo.originOf));
    else if (Array.isArray(parent)) parent.length = Math.min(parent.length, Number(key));
    else delete (parent as Record<string, Json>)[key];
  }
}
