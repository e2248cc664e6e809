// OWASP minimum for argon2id: m = 19 MiB, t = 2, p = 1 (docs/auth.md#passwords). The binding runs off the event loop.
// `algorithm: 2` is Algorithm.Argon2id (a const enum, which verbatimModuleSyntax cannot import).
const PARAMS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * What an unknown user's password is checked against, so the answer takes as long as for a known one:
 * a hash made once with PARAMS (of a password nobody uses; a match is never reported). Being a constant,
 * a start no longer spends a 19 MiB argon2 hash on it.
 */
const DUMMY_PHC =
  '$argon2id$v=19$m=19456,t=2,p=1$zcucyw+1V5MCK3QG7qMZlw$audttXu8Ks3ruos+R9EJpXL4VRc4IxyFWLNbzE+y2XE';

/** The native binding, loaded on the first hash or verify: a hub nobody signs in to never loads it. */
let binding: Promise<typeof import('@node-rs/argon2')> | undefined;
const argon2 = () => (binding ??= import('@node-rs/argon2'));

/** Caps overlapping hashes so a burst of logins cannot exhaust a Pi's memory. */
const MAX_CONCURRENT = 2;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Verifies against a PHC string; with `null` runs a dummy verify so unknown users cost the same time. */
  verify(phc: string | null, password: string): Promise<boolean>;
  /** True when a stored hash was made with other parameters than today's. */
  needsRehash(phc: string): boolean;
}

export async function createPasswordHasher(): Promise<PasswordHasher> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const limited = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
  return {
    hash: (password) => limited(async () => (await argon2()).hash(password, PARAMS)),
    needsRehash: (phc) =>
      !phc.startsWith(`$argon2id$v=19$m=${PARAMS.memoryCost},t=${PARAMS.timeCost},p=${PARAMS.parallelism}$`),
    verify: (phc, password) =>
      limited(async () => {
        try {
          const ok = await (await argon2()).verify(phc ?? DUMMY_PHC, password);
          return phc !== null && ok;
        } catch {
          return false;
        }
      }),
  };
}
