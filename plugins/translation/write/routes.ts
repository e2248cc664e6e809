import type { HearthRouter } from '../../../core/sdk.ts';
import { characterCount, type UsageLedger } from '../accounting/usage-ledger.ts';
import type { EngineChain } from '../engines/chain.ts';
import { invalid, keyLimitReached } from '../errors.ts';
import { requestParams } from '../request/body.ts';
import { apiRequest, reportingTag } from '../routes/api.ts';
import type { ApiRequest } from '../routes/client-auth.ts';
import { clientGone } from '../routes/client-gone.ts';
import { type Account, NO_ENGINE_MESSAGE } from '../translate-service.ts';
import { answerLanguage, type ImproveKind, parseImproveRequest } from './params.ts';

export interface WriteDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  chain: EngineChain | null;
  ledger: UsageLedger;
}

/**
 * `POST /v2/write/rephrase` and `/v2/write/correct` (docs/translation.md#rephrase-and-correct): the
 * characters are reserved against the key's limit like a translation and billed as text improvement.
 */
export function mountWrite(router: HearthRouter, deps: WriteDeps): void {
  const improve = (kind: ImproveKind) => async (ctx: Parameters<Parameters<HearthRouter['post']>[1]>[0]) => {
    const account = await deps.authenticate(apiRequest(ctx));
    const req = parseImproveRequest(kind, await requestParams(ctx.req));
    const tag = reportingTag(ctx.get('x-deepl-reporting-tag'));
    if (!deps.chain) throw invalid(NO_ENGINE_MESSAGE);
    // No able engine is a 400 whatever the quota, so it is checked before the characters are reserved.
    await deps.chain.improvers(req);
    const billed = req.texts.map(characterCount).reduce((a, b) => a + b, 0);
    if (!deps.ledger.reserve(account.id, billed, account.limit)) throw keyLimitReached();
    try {
      const result = await deps.chain.improve(req, clientGone(ctx.res));
      deps.ledger.record(account.id, tag, billed, new Date(), 'improvement');
      ctx.body = {
        improvements: result.map((r) => ({
          detected_source_language: r.detectedSource ?? 'en',
          target_language: req.target ?? answerLanguage(r.detectedSource ?? 'en'),
          text: r.text,
        })),
      };
    } catch (err) {
      deps.ledger.release(account.id, billed);
      throw err;
    }
  };
  router.post('/v2/write/rephrase', improve('rephrase'));
  router.post('/v2/write/correct', improve('correct'));
}
