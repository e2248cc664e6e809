import type { AuthExports } from '../../auth/index.ts';
import type { DeveloperKeys } from '../accounting/developer-keys.ts';
import type { UsageLedger } from '../accounting/usage-ledger.ts';
import { forbidden, keyLimitReached } from '../errors.ts';
import type { Account } from '../translate-service.ts';

/** docs/translation.md#transport-and-authentication: `Authorization: DeepL-Auth-Key <key>`. */
export function deeplAuthKey(header: string | undefined): string | undefined {
  const match = /^DeepL-Auth-Key\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Who is calling the translation API: an active developer key, or (when the auth plugin runs) a site token
 * carrying the `translate` scope. Anything else is 403, like DeepL. spec Errors: "456 | any request with
 * a developer key whose usage limit is reached", so a key at its limit is refused here, for every endpoint.
 */
export function clientAuthenticator(
  keys: DeveloperKeys,
  ledger: UsageLedger,
  auth: () => AuthExports | undefined,
) {
  return async (header: string | undefined): Promise<Account> => {
    const secret = deeplAuthKey(header);
    if (secret) {
      const key = keys.authenticate(secret);
      if (!key) throw forbidden();
      const account = { id: `key:${key.id}`, limit: key.limits.characters };
      if (ledger.atLimit(account.id, account.limit)) throw keyLimitReached();
      return account;
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
