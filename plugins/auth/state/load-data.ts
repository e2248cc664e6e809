import type { Logger } from 'pino';
import type { DocStore } from '../../../core/sdk.ts';
import { toDict } from './collections.ts';
import type { AuthData, QuarantinedRecord, RefreshData, SessionData } from './model.ts';
import {
  isClient,
  isConsentGrant,
  isFrontingLink,
  isIdp,
  isRefreshRecord,
  isResource,
  isSubjectMapping,
  isUser,
  isXaaPolicy,
} from './record-shapes.ts';

const isSession = (_key: string, v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Record<string, unknown>).user_id === 'string' &&
  typeof (v as Record<string, unknown>).id === 'string' &&
  Number.isFinite((v as Record<string, unknown>).expires_at);

/**
 * Turns the keyed collections of the configuration document into null-prototype objects and sets aside
 * records that cannot be served (wrong shape, or filed under a key other than their id — what a lookup
 * that found an inherited property once saved). Set-aside records go to `quarantine` in the same file,
 * so nothing stored is lost, and the server starts whatever the file holds.
 */
export async function prepareAuthData(store: DocStore<AuthData>, log: Logger): Promise<void> {
  const d = store.data;
  const quarantined: QuarantinedRecord[] = [];
  const at = new Date().toISOString();
  const take = <T>(collection: string, value: unknown, keep: (k: string, v: unknown) => boolean) => {
    const { dict, dropped } = toDict<T>(value, keep);
    for (const x of dropped) quarantined.push({ collection, key: x.key, record: x.record, at });
    return dict;
  };
  // Assigned directly: the content is unchanged unless something was set aside (committed below).
  d.clients = take('clients', d.clients, isClient);
  d.users = take('users', d.users, isUser);
  d.resources = take('resources', d.resources, isResource);
  d.consent_grants = take('consent_grants', d.consent_grants, isConsentGrant);
  // Absent in files written before fronting links existed: an empty collection.
  d.fronting = take('fronting', d.fronting ?? {}, isFrontingLink);
  d.idps = take('idps', d.idps ?? {}, isIdp);
  d.xaa_policies = take('xaa_policies', d.xaa_policies ?? {}, isXaaPolicy);
  d.xaa_subject_mappings = take('xaa_subject_mappings', d.xaa_subject_mappings ?? {}, isSubjectMapping);
  const dcr = d.settings?.dcr;
  const dcrOk =
    dcr === null ||
    (typeof dcr === 'object' && typeof dcr.mode === 'string' && Array.isArray(dcr.approved_redirects));
  if (!d.settings || typeof d.settings !== 'object' || !dcrOk) {
    quarantined.push({ collection: 'settings', key: 'dcr', record: d.settings, at });
    d.settings = { dcr: null };
  }
  if (quarantined.length === 0) return;
  for (const q of quarantined) {
    log.error(
      { collection: q.collection, key: q.key },
      'malformed auth record set aside (kept under "quarantine" in auth.data.json)',
    );
  }
  await store.commit((x) => {
    x.quarantine = [...(Array.isArray(x.quarantine) ? x.quarantine : []), ...quarantined];
  });
}

/** Refresh records and sessions are keyed by hashes; malformed ones are useless and dropped. */
export function prepareRefreshData(store: DocStore<RefreshData>, log: Logger): void {
  const { dict, dropped } = toDict<RefreshData['tokens'][string]>(store.data.tokens, isRefreshRecord);
  if (dropped.length === 0) {
    store.data.tokens = dict;
    return;
  }
  log.error({ dropped: dropped.length }, 'malformed refresh-token records dropped');
  store.update((d) => {
    d.tokens = dict;
  });
}

export function prepareSessionData(store: DocStore<SessionData>, log: Logger): void {
  const { dict, dropped } = toDict<SessionData['sessions'][string]>(store.data.sessions, isSession);
  if (dropped.length === 0) {
    store.data.sessions = dict;
    return;
  }
  log.error({ dropped: dropped.length }, 'malformed session records dropped');
  store.update((d) => {
    d.sessions = dict;
  });
}
