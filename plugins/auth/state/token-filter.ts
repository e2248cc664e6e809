/** Which tokens a cascade (revocation, suspension notice) reaches: every given field must match. */
export interface TokenFilter {
  user_id?: string;
  client_id?: string;
  consent_grant_id?: string;
}

type Matchable = { user_id: string; client_id: string; consent_grant_id?: string | undefined };

const FIELDS = ['user_id', 'client_id', 'consent_grant_id'] as const;

/**
 * The predicate of a filter, or null when it would match nothing. A filter with no field, or with a field
 * that is present but not a non-empty string (an id read from a record that was not there), matches
 * nothing: a cascade must never widen to every token because a lookup came back empty.
 */
export function tokenFilter(filter: TokenFilter): ((x: Matchable) => boolean) | null {
  const wanted: Array<[(typeof FIELDS)[number], string]> = [];
  for (const f of FIELDS) {
    if (!Object.hasOwn(filter, f)) continue;
    const v = filter[f];
    if (typeof v !== 'string' || v === '') return null;
    wanted.push([f, v]);
  }
  if (wanted.length === 0) return null;
  return (x) => wanted.every(([f, v]) => x[f] === v);
}
