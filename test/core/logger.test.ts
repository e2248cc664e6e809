import { describe, expect, it } from 'vitest';
import { definePlugin } from '../../core/plugin/types.ts';
import { startTestHub } from '../helpers/hub.ts';

const SITE_KEY = 'Zq9sitekeyVERYsecret_0123456789';
const TOKEN = 'tok3n.bearer.SECRET-abcdef123456';
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzd2l0Y2gifQ.c2lnbmF0dXJlLXNlY3JldA';
const UPSTREAM = 'upstream-api-key-4f1e2d3c';
/** An API key in a query string that nothing registered: only the query pattern can scrub it. */
const QUERY_KEY = 'legacy-query-key-7e6d5c4b';

const leaky = definePlugin({
  name: 'leaky',
  version: '1.0.0',
  description: 'logs things it should not',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    ctx.redact.value(UPSTREAM);
    const r = ctx.http.router('main');
    r.get('/api/site/:key/light', (k) => {
      ctx.log.info({ key: k.params.key, password: 'hunter2-password', token: TOKEN }, `call for ${k.url}`);
      ctx.log.warn(`upstream answered 403 for key ${UPSTREAM} and header Bearer ${TOKEN}`);
      k.body = [];
    });
    r.get('/fail', () => {
      throw new Error(`crashed while using ${JWT}`);
    });
    return { stop() {} };
  },
});

describe('log redaction', () => {
  it('never writes site keys, bearer tokens, JWTs, passwords or registered secrets', async () => {
    const t = await startTestHub({ extraPlugins: [leaky] });
    await fetch(`${t.url}/api/site/${SITE_KEY}/light?access_token=${TOKEN}`, {
      headers: { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}` },
    });
    await fetch(`${t.url}/site/${SITE_KEY}`);
    await fetch(`${t.url}/v2/usage?auth_key=${QUERY_KEY}&x=1`);
    await fetch(`${t.url}/fail`, { headers: { authorization: `Bearer ${JWT}` } });
    await fetch(`${t.adminUrl}/admin/nothing`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await t.stop();
    const all = t.logs.map((l) => JSON.stringify(l)).join('\n');
    // The requests were logged at all (otherwise this test could not fail).
    expect(all).toContain('call for /api/site/[REDACTED]/light');
    expect(all).toContain('/site/[REDACTED]');
    expect(all).toContain('crashed while using [REDACTED]');
    expect(all).toContain('/v2/usage?auth_key=[REDACTED]&x=1');
    for (const secret of [SITE_KEY, TOKEN, JWT, UPSTREAM, QUERY_KEY, 'hunter2-password', t.adminKey]) {
      expect(all).not.toContain(secret);
    }
  });
});
