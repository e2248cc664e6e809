/** A local user reached by signing in at an upstream OpenID provider: the pair (iss, sub) is the identity. */
export interface UpstreamLink {
  iss: string;
  sub: string;
  user_id: string;
  provider_id: string;
  /** How the link was made: `created` (new user), `verified_email`, the audit trail of the rule that applied. */
  rule: 'created' | 'verified_email';
  created_at: string;
}

/** `auth.upstream.json`: links by `<iss> <sub>` (a space cannot occur in an issuer URL). */
export interface UpstreamData {
  links: Record<string, UpstreamLink>;
}

export const linkKey = (iss: string, sub: string): string => `${iss} ${sub}`;
