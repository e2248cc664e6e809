import type { MatchResult } from '@koa/router';
import type { HearthRouter } from './types.ts';

/** Recent distinct (method, path) pairs remembered per router; the whole memo is dropped when full. */
const MEMO_SIZE = 256;

/**
 * Remembers which layers match a (method, path). @koa/router tests every layer's regexp on every request
 * (the site API has ~40 layers: ~2 µs a request); an appliance sees the same few paths over and over.
 * Registering a route or middleware forgets everything. Callers get fresh arrays: the router appends to
 * `ctx.matched` in place.
 */
export function memoizeMatches(router: HearthRouter): void {
  const memo = new Map<string, MatchResult>();
  const match = router.match.bind(router);
  const register = router.register.bind(router);
  router.register = (...args) => {
    memo.clear();
    return register(...args);
  };
  router.match = (path, method) => {
    const key = `${method} ${path}`;
    let found = memo.get(key);
    if (!found) {
      found = match(path, method);
      if (memo.size >= MEMO_SIZE) memo.clear();
      memo.set(key, found);
    }
    return { path: [...found.path], pathAndMethod: [...found.pathAndMethod], route: found.route };
  };
}
