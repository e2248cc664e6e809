import { StoreError } from './errors.ts';

type Kind = 'doc' | 'log';

interface Claim {
  holder: object;
  kind: Kind;
  store: Promise<unknown>;
}

/**
 * Which StoreRoot owns which file, process-wide. Deliberately module state: two roots on one data dir in one
 * process (a hub restarted in a test before the old one closed) would be two writers of the same lowdb file.
 */
const claims = new Map<string, Claim>();

/**
 * Returns the one store object of `file` for `holder`, creating it on first use. Another root holding the
 * file, or the same file opened as a different kind, is refused.
 */
export function claimFile<S>(file: string, holder: object, kind: Kind, create: () => Promise<S>): Promise<S> {
  const existing = claims.get(file);
  if (existing) {
    if (existing.holder !== holder) {
      return Promise.reject(
        new StoreError('store_in_use', `${file} is already open by another store root in this process`),
      );
    }
    if (existing.kind !== kind) {
      return Promise.reject(
        new StoreError('store_in_use', `${file} is already open as a ${existing.kind} store`),
      );
    }
    return existing.store as Promise<S>;
  }
  const store = create();
  claims.set(file, { holder, kind, store });
  // A failed open frees the name so a later attempt can retry.
  store.catch(() => {
    if (claims.get(file)?.store === store) claims.delete(file);
  });
  return store;
}

export function releaseFile(file: string, holder: object): void {
  if (claims.get(file)?.holder === holder) claims.delete(file);
}
