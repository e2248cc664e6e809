import { describe, expect, it } from 'vitest';
import { applyUndo, takeSnapshot, undoFor } from '../../core/store/undo.ts';

type Doc = {
  devices: Array<{ id: string; name: string }>;
  byId: Record<string, { n: number }>;
  count: number;
};

const change = (doc: Doc, mutate: (d: Doc) => void) => {
  const snapshot = takeSnapshot(doc);
  mutate(doc);
  return undoFor(snapshot, doc);
};

const PROTO_KEY = ['__', 'proto', '__'].join('');

describe('undo records', () => {
  it('put back a replaced array with its original element objects, as they were', () => {
    const a = { id: 'a', name: 'A' };
    const b = { id: 'b', name: 'B' };
    const doc: Doc = { devices: [a, b], byId: {}, count: 1 };
    const devices = doc.devices;
    const undo = change(doc, (d) => {
      a.name = 'renamed';
      d.devices = d.devices.filter((x) => x.id !== 'b');
      d.count = 2;
    });
    applyUndo(doc, undo);
    expect(doc).toEqual({
      devices: [
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B' },
      ],
      byId: {},
      count: 1,
    });
    expect(doc.devices).toBe(devices);
    expect(doc.devices[0]).toBe(a);
    expect(doc.devices[1]).toBe(b);
  });

  it('treat __proto__ as a key like any other, added or removed', () => {
    const doc = JSON.parse('{"devices":[],"byId":{"__proto__":{"n":1}},"count":0}') as Doc;
    const added = change(doc, (d) => {
      Object.defineProperty(d.byId, 'constructor', {
        value: { n: 2 },
        enumerable: true,
        configurable: true,
        writable: true,
      });
      Reflect.deleteProperty(d.byId, PROTO_KEY);
    });
    applyUndo(doc, added);
    expect(Object.getPrototypeOf(doc.byId)).toBe(Object.prototype);
    expect(Object.hasOwn(doc.byId, '__proto__')).toBe(true);
    expect(Object.hasOwn(doc.byId, 'constructor')).toBe(false);
    expect(JSON.stringify(doc.byId)).toBe('{"__proto__":{"n":1}}');
  });

  it('leave alone what changed elsewhere in the document meanwhile', () => {
    const doc: Doc = { devices: [], byId: { x: { n: 1 } }, count: 0 };
    const undo = change(doc, (d) => {
      d.byId.y = { n: 2 };
    });
    doc.count = 7; // a coalesced update after the commit
    applyUndo(doc, undo);
    expect(doc).toEqual({ devices: [], byId: { x: { n: 1 } }, count: 7 });
  });
});
