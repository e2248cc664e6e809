// Favourites are chosen per device (the wall tablet in the hall wants other buttons than a phone), so
// they live in this browser's localStorage, per site: `hearth.favourites.<siteid>` = ["scene:<id>", …].

const keyOf = (siteid) => `hearth.favourites.${siteid}`;

function read(siteid) {
  try {
    const list = JSON.parse(localStorage.getItem(keyOf(siteid)) ?? '[]');
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

export const isFavourite = (siteid, kind, id) => read(siteid).has(`${kind}:${id}`);

export function setFavourite(siteid, kind, id, on) {
  const set = read(siteid);
  if (on) set.add(`${kind}:${id}`);
  else set.delete(`${kind}:${id}`);
  try {
    localStorage.setItem(keyOf(siteid), JSON.stringify([...set]));
  } catch {
    // storage full or blocked (private mode): the choice is not kept; nothing else depends on it
  }
}
