/**
 * Hearth's rooms as Matter sees them. Hearth's rooms are the site's groups, as the household app shows
 * them: a light sits in the first group (in the site's order) that lists it. Matter's place for a bridge's
 * rooms is the Actions cluster on the Aggregator: its EndpointLists of type Room, "where an endpoint can be
 * in only one room", name the bridged endpoints of each room, so a controller can place each device in the
 * right room at first contact (Matter 1.3 §9.14.4.5, §9.14.5.2; no actions, an empty ActionList, §9.14).
 */
import type { EndpointNumber } from '@matter/main';
import { Actions } from '@matter/main/clusters/actions';
import type { GroupRecord } from '../lighting/types.ts';
import { label } from './light-endpoints.ts';

/**
 * One Room list per group with at least one light placed in it (lights and measurement endpoints of
 * sensors have no group). EndpointListID is the group's position in the site (1-based), stable as long
 * as the groups keep their order.
 */
export function roomLists(
  groups: readonly GroupRecord[],
  endpointOf: (lightId: string) => EndpointNumber | undefined,
): Actions.EndpointList[] {
  const placed = new Set<string>();
  const lists: Actions.EndpointList[] = [];
  groups.forEach((g, i) => {
    const endpoints: EndpointNumber[] = [];
    for (const id of g.lights) {
      const n = endpointOf(id);
      if (placed.has(id) || n === undefined) continue;
      placed.add(id);
      endpoints.push(n);
    }
    if (endpoints.length > 0)
      lists.push({
        endpointListId: i + 1,
        name: label(g.name),
        type: Actions.EndpointListType.Room,
        endpoints,
      });
  });
  return lists;
}
