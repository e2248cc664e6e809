// The argon2id hasher lives in the core so every plugin that keeps a password (auth's users, the
// console's owner) hashes it the same way.
export { createPasswordHasher, type PasswordHasher } from '../../../core/sdk.ts';
