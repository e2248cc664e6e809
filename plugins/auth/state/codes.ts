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
  /** Set on first redemption; a second redemption revokes what the first one issued (RFC 6749 §4.1.2). */
  redeemed?: { jti: string; exp: number; family_id: string | null };
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
