import type { AuthExports } from '../../auth/index.ts';
import type { TokenPresentation } from '../../auth/sites/verify.ts';
import type { DeveloperKeys } from '../accounting/developer-keys.ts';
import { forbidden } from '../errors.ts';
import type { Account } from '../translate-service.ts';

/** docs/translation.md#transport-and-authentication: `Authorization: DeepL-Auth-Key <key>`. */
export function deeplAuthKey(header: string | undefined): string | undefined {
  const match = /^DeepL-Auth-Key\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Who is calling the translation API: an active developer key, or (when the auth plugin runs) a site token
 * carrying the `translate` scope. Anything else is 403, like DeepL. A key at its character limit still
 * authenticates: clients read `/v2/usage` after a 456 to see their quota, so only billed work is refused
 * (by the reservation in the translate service), never usage or the language lists.
 */
/** What the authenticator reads of a request: `Authorization`, and for DPoP the proof, method and URL. */
export interface ApiRequest {
  authorization: string | undefined;
  dpop?: string | string[] | undefined;
  method?: string;
  /** The request's path; the proof's `htu` must name it on one of this hub's own origins. */
  path?: string;
}

/** `Authorization: Bearer <token>` or `DPoP <token>` (RFC 9449 §7.1) with how it was presented. */
function tokenOf(
  req: ApiRequest,
  origins: () => string[],
): { token: string; presentation: TokenPresentation } | null {
  const m = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(req.authorization ?? '');
  if (!m) return null;
  const proof = Array.isArray(req.dpop) ? req.dpop.join(',') : req.dpop || undefined;
  return {
    token: m[2]!,
    presentation: {
      scheme: m[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer',
      method: req.method ?? 'POST',
      // RFC 9449 §4.3 item 9, §11.1: the main listener's own origins, never the Host header.
      urls: req.path ? origins().map((o) => `${o}${req.path}`) : [],
      ...(proof ? { proof } : {}),
    },
  };
}

export function clientAuthenticator(
  keys: DeveloperKeys,
  auth: () => AuthExports | undefined,
  origins: () => string[],
) {
  return async (req: ApiRequest): Promise<Account> => {
    const header = req.authorization;
    const secret = deeplAuthKey(header);
    if (secret) {
      const key = keys.authenticate(secret);
      if (!key) throw forbidden();
      return { id: `key:${key.id}`, limit: key.limits.characters };
    }
    const presented = tokenOf(req, origins);
    const verify = auth()?.verifyAccessToken;
    if (presented && verify) {
      const token = await verify(presented.token, {
        scope: 'translate',
        presentation: presented.presentation,
      });
      if (token) return { id: `token:${token.client_id}`, limit: null };
    }
    throw forbidden();
  };
}
