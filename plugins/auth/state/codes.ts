import { randomToken, sha256 } from '../domain/secrets.ts';

export interface CodeRecord {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  user_id: string;
  resource_id: string;
  scopes: string[];
  consent_grant_id: string;
  expires_at: number;
  /** OpenID Connect: the authorization request's `nonce` and the sign-in time (epoch s) of the session. */
  nonce?: string | undefined;
  auth_time: number;
  /** RFC 9449 §10: the code is redeemed only with a DPoP proof made with this key. */
  dpop_jkt?: string | undefined;
  /**
   * Set on first redemption, before anything is issued: every token issued from the code belongs to
   * `family_id`. A second redemption sets `reused` and revokes the family (RFC 6749 §4.1.2); a first
   * redemption still signing at that moment sees `reused` afterwards and revokes what it made.
   */
  redeemed?: { family_id: string; reused: boolean };
}

/**
 * Authorization codes, kept in memory by SHA-256 only. A restart invalidates outstanding codes, which
 * costs a user one more click and keeps the 10-minute secrets off the disk.
 */
export function createCodeStore() {
  const codes = new Map<string, CodeRecord>();
  const sweep = () => {
    const t = Date.now();
    for (const [k, c] of codes) if (c.expires_at + 60_000 < t) codes.delete(k);
  };
  return {
    issue(record: CodeRecord): string {
      sweep();
      const code = randomToken();
      codes.set(sha256(code), record);
      return code;
    },
    get: (code: string): CodeRecord | undefined => codes.get(sha256(code)),
    size: () => codes.size,
  };
}

export type CodeStore = ReturnType<typeof createCodeStore>;
