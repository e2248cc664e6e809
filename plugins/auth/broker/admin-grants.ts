import type { HearthRouter } from '../../../core/sdk.ts';
import { auditAdmin, missing, param } from '../admin/util.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import { revokeBrokerGrants } from './grants.ts';

/** `DELETE /admin/grants/broker/{id}`: 204; revoking twice is 204 too; an unknown id is 404. */
export function mountBrokerGrantAdmin(r: HearthRouter, s: AuthServices): void {
  r.delete('/grants/broker/:id', async (ctx) => {
    const g = own(s.broker.data.grants, param(ctx, 'id'));
    if (!g) throw missing('grant_not_found', 'unknown broker grant');
    await revokeBrokerGrants(s, (x) => x.id === g.id);
    auditAdmin(s, ctx, 'broker_grant.revoked_admin', { detail: g.id });
    ctx.status = 204;
  });
}
