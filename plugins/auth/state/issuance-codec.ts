import type { Issuance } from './model.ts';

/**
 * One issuance as one tab-separated line. The store rewrites its whole log file on every coalesced write,
 * pretty-printed; a string per record keeps that cheap (a third of the bytes, one line per record), which
 * is what kept the p99 of token issuance down. Tabs cannot occur in ids (UUIDs, client ids), scope tokens
 * (RFC 6749 §3.3) or JWK thumbprints, and empty fields are empty strings.
 *
 * Fields (version 2): version, jti, subject user, client, resource, scopes (space-separated), issued (ms),
 * expires (ms), refresh family, consent grant, parent jti, DPoP key thumbprint, consent client, agent id,
 * agent chain (space-separated, root first). Version 1 lines (the first eleven fields) are still read.
 * A sixteenth field `broker` marks a vended upstream token (backend_kind broker, not revocable here); it is
 * written only then, so lines of minted tokens are unchanged.
 */
const VERSION = '2';
const FIELDS = 15;
const V1 = '1';
const V1_FIELDS = 11;

export function encodeIssuance(i: Issuance): string {
  return [
    VERSION,
    i.jti,
    i.subject_user_id,
    i.client_id,
    i.resource_id,
    i.scopes.join(' '),
    i.t,
    Date.parse(i.expires_at),
    i.family_id ?? '',
    i.consent_grant_id ?? '',
    i.parent_jti,
    i.dpop_jkt ?? '',
    i.consent_client_id,
    i.agent_id ?? '',
    i.agent_chain.join(' '),
    ...(i.backend_kind === 'broker' ? ['broker'] : []),
  ].join('\t');
}

export function decodeIssuance(line: string): Issuance | null {
  const f = line.split('\t');
  const broker = f[0] === VERSION && f.length === FIELDS + 1 && f[FIELDS] === 'broker';
  const v2 = (f[0] === VERSION && f.length === FIELDS) || broker;
  if (!v2 && !(f[0] === V1 && f.length === V1_FIELDS)) return null;
  const [, jti, user, client, resource, scopes, t, exp, family, grant, parent] = f as [string, ...string[]];
  const [jkt, consentClient, agent, chain] = v2 ? f.slice(11, FIELDS) : [];
  const issued = Number(t);
  const expires = Number(exp);
  if (!jti || !client || !Number.isFinite(issued) || !Number.isFinite(expires)) return null;
  return {
    id: jti,
    jti,
    subject_user_id: user ?? '',
    client_id: client,
    resource_id: resource ?? '',
    scopes: scopes ? scopes.split(' ') : [],
    backend_kind: broker ? 'broker' : 'mint',
    revocable: !broker,
    issued_at: new Date(issued).toISOString(),
    expires_at: new Date(expires).toISOString(),
    agent_chain: chain ? chain.split(' ') : [],
    consent_client_id: v2 ? (consentClient ?? '') : grant ? client : '',
    parent_jti: parent ?? '',
    ...(jkt ? { dpop_jkt: jkt } : {}),
    ...(agent ? { agent_id: agent } : {}),
    ...(family ? { family_id: family } : {}),
    ...(grant ? { consent_grant_id: grant } : {}),
    t: issued,
  };
}

/** Issued-at (epoch ms) of an encoded line, for the log's age retention; 0 for a malformed line. */
export function issuedAtOf(line: string): number {
  const t = Number(line.split('\t', 7)[6]);
  return Number.isFinite(t) ? t : 0;
}

/** The jti of an encoded line ('' for a line of an unknown version). */
export function jtiOf(line: string): string {
  const [version, jti] = line.split('\t', 2);
  return (version === VERSION || version === V1) && jti ? jti : '';
}

/** The parent jti of an encoded line (token exchange), '' when none. */
export function parentOf(line: string): string {
  return line.split('\t', 11)[10] ?? '';
}
