/**
 * The owner on the admin API (admin key or console session):
 *   GET /admin/console/owner            whether the hub is claimed, by which address and when, whether an
 *                                       owner password is set, the setup code while unclaimed, and the
 *                                       addresses a phone can open (what `hearth status` prints)
 *   PUT /admin/console/owner/password   {password}: sets the owner password (claims an unclaimed hub)
 */
import { type HearthRouter, jsonObjectBody, type PasswordHasher } from '../../../core/sdk.ts';
import { addressesOf } from '../addresses.ts';
import type { Owner } from './owner.ts';
import { checkPassword } from './routes.ts';

export interface OwnerAdminDeps {
  owner: Owner;
  passwords: () => Promise<PasswordHasher>;
  requireCode: boolean;
  listenerUrl: (name: string) => string | null;
}

export function mountOwnerAdmin(r: HearthRouter, d: OwnerAdminDeps): void {
  r.get('/owner', (ctx) => {
    const rec = d.owner.record;
    const main = d.listenerUrl('main');
    const admin = d.listenerUrl('admin');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      claimed: !d.owner.claimable,
      claimedAt: rec.claimedAt,
      claimedFrom: rec.claimedFrom,
      password: rec.passwordHash !== null,
      setupCodeRequired: d.requireCode,
      setupCode: d.owner.setupCode(),
      addresses: {
        console: admin ? addressesOf(admin, '/') : [],
        household: main ? addressesOf(main, '/') : [],
      },
    };
  });

  r.put('/owner/password', async (ctx) => {
    const password = checkPassword(jsonObjectBody(ctx).password);
    await d.owner.setPassword(await (await d.passwords()).hash(password));
    ctx.status = 204;
  });
}
