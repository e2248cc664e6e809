/**
 * Who owns the hub. A data directory this hub created itself starts unclaimed: the console offers "Set up
 * this hub" until the first person finishes it, who becomes the owner and chooses the owner password. The
 * record lives in the console's store, so a backup carries it and restoring a claimed backup restores a
 * claimed hub. A data directory from before the claim existed (or one provisioned with HEARTH_ADMIN_KEY)
 * counts as claimed by whoever holds the admin key: it is never offered to a visitor.
 *
 * The one-time setup code (required before the form when `claim.setupCode` is on) is kept among the
 * console's encrypted secrets until the claim, so `hearth status` can show it to the admin key's holder.
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import type { DocStore, PluginContext } from '../../../core/sdk.ts';

export interface OwnerRecord {
  /** `new`: no record yet (an older data directory, or one provisioned with HEARTH_ADMIN_KEY). */
  state: 'new' | 'unclaimed' | 'claimed';
  claimedAt: string | null;
  /** The client address the claim came from, or `admin API` when set with the admin key. */
  claimedFrom: string | null;
  /** argon2id PHC string of the owner password; null while none was chosen. */
  passwordHash: string | null;
}

const SETUP_CODE = 'setup-code';
/** Crockford's base32 without I, L, O, U: nothing to misread on a screen or a journal line. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Eight characters as `XXXX-XXXX` (40 bits): enough for a code that is typed once, behind a rate limit. */
export function newSetupCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** The code as typed, upper-cased, without spaces or dashes; O and I/L read as 0 and 1. */
const normalise = (code: string): string =>
  code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');

export class Owner {
  private constructor(
    private readonly doc: DocStore<OwnerRecord>,
    private readonly secrets: PluginContext['secrets'],
  ) {}

  /** Opens the record; on a hub's very first start makes it unclaimed and returns the new setup code. */
  static async open(ctx: PluginContext): Promise<{ owner: Owner; setupCode: string | null }> {
    const doc = await ctx.store.open<OwnerRecord>('owner', {
      state: 'new',
      claimedAt: null,
      claimedFrom: null,
      passwordHash: null,
    });
    const owner = new Owner(doc, ctx.secrets);
    if (doc.data.state !== 'new' || !ctx.adminKey.newHub) return { owner, setupCode: null };
    const setupCode = newSetupCode();
    await ctx.secrets.set(SETUP_CODE, setupCode);
    await doc.commit((d) => {
      d.state = 'unclaimed';
    });
    return { owner, setupCode };
  }

  get claimable(): boolean {
    return this.doc.data.state === 'unclaimed';
  }

  get record(): Readonly<OwnerRecord> {
    return this.doc.data;
  }

  get passwordHash(): string | null {
    return this.doc.data.passwordHash;
  }

  /** The setup code while the hub is unclaimed, else null. */
  setupCode(): string | null {
    return this.claimable ? (this.secrets.get(SETUP_CODE) ?? null) : null;
  }

  codeMatches(presented: unknown): boolean {
    const code = this.setupCode();
    if (!code || typeof presented !== 'string' || presented.length > 40) return false;
    const a = Buffer.from(normalise(code));
    const b = Buffer.from(normalise(presented));
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Makes the hub claimed with this owner password; the setup code is gone for good. */
  async claim(passwordHash: string, from: string): Promise<void> {
    await this.doc.commit((d) => {
      d.state = 'claimed';
      d.claimedAt = new Date().toISOString();
      d.claimedFrom = from;
      d.passwordHash = passwordHash;
    });
    await this.secrets.delete(SETUP_CODE);
  }

  /** A new owner password (the owner changing it, or the admin key's holder choosing one). */
  async setPassword(passwordHash: string): Promise<void> {
    if (this.claimable) return this.claim(passwordHash, 'admin API');
    await this.doc.commit((d) => {
      if (d.state === 'new') {
        d.state = 'claimed';
        d.claimedAt = new Date().toISOString();
        d.claimedFrom = 'admin API';
      }
      d.passwordHash = passwordHash;
    });
  }
}
