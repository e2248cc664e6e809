import type { AuthExports } from '../../auth/index.ts';
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
export function clientAuthenticator(keys: DeveloperKeys, auth: () => AuthExports | undefined) {
  return async (header: string | undefined): Promise<Account> => {
    const secret = deeplAuthKey(header);
    if (secret) {
      const key = keys.authenticate(secret);
      if (!key) throw forbidden();
      return { id: `key:${key.id}`, limit: key.limits.characters };
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    const verify = auth()?.verifyAccessToken;
    if (bearer && verify) {
      const token = await verify(bearer, { scope: 'translate' });
      if (token) return { id: `token:${token.client_id}`, limit: null };
    }
    throw forbidden();
  };
}
