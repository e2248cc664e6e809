/**
 * Rooms: the site's groups reach the controller as the Aggregator's Actions EndpointLists of type Room,
 * each light in the first group that lists it (as the household app places it), and follow changes.
 */
import type { ClientNode } from '@matter/main';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

const ROOM = 1; // Actions.EndpointListType.Room

describe('matter bridge: rooms', () => {
  let h: MatterHarness;
  let controller: TestController;
  let peer: ClientNode;
  const ids: Record<string, string> = {};
  const number = (id: string) => TestController.bridged(peer).get(ids[id] as string)?.number;
  /** The Aggregator's EndpointLists as the controller last heard them. */
  const rooms = (): Json[] => {
    for (const part of peer.parts as Iterable<Json>) {
      const lists = part.state.actions?.endpointLists;
      if (lists) return lists;
    }
    return [];
  };

  beforeAll(async () => {
    h = await startMatter();
    for (const name of ['Sofa', 'Shelf', 'Hob', 'Hall']) {
      const r = await h.call('POST', '/light', { name, type: 'dimmable', vendor: 'test', testid: name });
      ids[name] = r.body._id;
    }
    const living = await h.call('POST', '/light/group', {
      name: 'Living room',
      lights: [ids.Sofa, ids.Shelf],
    });
    expect(living.status).toBe(201);
    ids.living = living.body._id;
    // Shelf is in Living room first: it stays there (one room per light).
    const kitchen = await h.call('POST', '/light/group', { name: 'Kitchen', lights: [ids.Hob, ids.Shelf] });
    ids.kitchen = kitchen.body._id;
    controller = await TestController.create({ label: 'Apple Home', vendorId: 0x1349 });
    const opened = (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;
    peer = await controller.commission(opened.port, opened.manualPairingCode);
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await h?.t.stop();
  });

  it('each group is a Room list of its lights, a light in the first group only, a light in none in none', () => {
    const lists = rooms();
    expect(lists.map((l) => [l.name, l.type])).toEqual([
      ['Living room', ROOM],
      ['Kitchen', ROOM],
    ]);
    expect(lists[0].endpoints).toEqual([number('Sofa'), number('Shelf')]);
    expect(lists[1].endpoints).toEqual([number('Hob')]);
    expect(lists.flatMap((l) => l.endpoints)).not.toContain(number('Hall'));
    expect(new Set(lists.map((l) => l.endpointListId)).size).toBe(2);
  });

  it('a group renamed, a light moved and a group deleted reach the subscribed controller', async () => {
    await h.call('PUT', '/light/group', {
      _id: ids.kitchen,
      name: 'Kitchen & dining',
      lights: [ids.Hob, ids.Hall],
    });
    await until(
      () =>
        rooms()
          .find((l) => l.name === 'Kitchen & dining')
          ?.endpoints.includes(number('Hall')),
      'Hall in the renamed kitchen',
    );
    expect((await h.call('DELETE', `/light/group/${ids.living}`)).status).toBe(204);
    await until(() => rooms().length === 1, 'the living room gone');
    expect(rooms()[0].endpoints).toEqual([number('Hob'), number('Hall')]);
  });
});
