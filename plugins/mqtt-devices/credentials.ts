/**
 * Credentials for the embedded broker: a user name, a site, and optionally the topic filters the device
 * may use (a per-device credential); without filters it is a per-site credential. An operator credential
 * has no site: it may read the whole bus (and write it, when created read-write). Only a salted scrypt
 * hash of the password is stored; the password is shown once, when it is created.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { type DocStore, HttpError } from '../../core/sdk.ts';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number) => Promise<Buffer>;

/** An operator's view of the whole bus: `read` (the default) or `readwrite`. */
export type OperatorAccess = 'read' | 'readwrite';

export interface CredentialRecord {
  username: string;
  /** null for an operator credential. */
  site: string | null;
  /** Topic filters outside `hearth/` a per-device credential may use; null = any device topic. */
  topics: string[] | null;
  /** Set only on an operator credential. */
  operator?: OperatorAccess;
  salt: string;
  hash: string;
  created: string;
}

export type CredentialView = Omit<CredentialRecord, 'salt' | 'hash'>;

export interface CredentialsDoc {
  credentials: CredentialRecord[];
}

const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;
// Compared against when the user is unknown, so unknown and wrong cost the same.
const DUMMY = { salt: randomBytes(16).toString('base64url'), hash: randomBytes(32).toString('base64url') };

export const view = ({ salt: _s, hash: _h, ...rest }: CredentialRecord): CredentialView => rest;

export class Credentials {
  readonly #doc: DocStore<CredentialsDoc>;

  constructor(doc: DocStore<CredentialsDoc>) {
    this.#doc = doc;
  }

  /** Bumped by every change to the credentials (added, removed, a site's dropped; a failed write undone). */
  get version(): number {
    return this.#doc.version;
  }

  list(): CredentialView[] {
    return this.#doc.data.credentials.map(view);
  }

  get(username: string): CredentialRecord | undefined {
    return this.#doc.data.credentials.find((c) => c.username === username);
  }

  async add(spec: {
    username: string;
    site: string | null;
    topics: string[] | null;
    operator?: OperatorAccess;
    password?: string;
  }) {
    if (!USERNAME.test(spec.username))
      throw new HttpError(
        400,
        'invalid_request',
        'username must be 1-64 letters, digits, dots, dashes or underscores',
      );
    if (this.get(spec.username))
      throw new HttpError(409, 'conflict', `credential ${spec.username} already exists`);
    if (spec.password !== undefined && spec.password.length < 12)
      throw new HttpError(400, 'invalid_request', 'password must be at least 12 characters');
    const password = spec.password ?? randomBytes(18).toString('base64url');
    const salt = randomBytes(16);
    const record: CredentialRecord = {
      username: spec.username,
      site: spec.site,
      topics: spec.topics,
      ...(spec.operator ? { operator: spec.operator } : {}),
      salt: salt.toString('base64url'),
      hash: (await scryptAsync(password, salt, 32)).toString('base64url'),
      created: new Date().toISOString(),
    };
    await this.#doc.commit((d) => {
      d.credentials.push(record);
    });
    return { credential: view(record), password };
  }

  async remove(username: string): Promise<void> {
    if (!this.get(username)) throw new HttpError(404, 'not_found', `no credential ${username}`);
    await this.#doc.commit((d) => {
      d.credentials = d.credentials.filter((c) => c.username !== username);
    });
  }

  /** Drops the credentials of a deleted site. */
  async removeSite(site: string): Promise<void> {
    if (!this.#doc.data.credentials.some((c) => c.site === site)) return;
    await this.#doc.commit((d) => {
      d.credentials = d.credentials.filter((c) => c.site !== site);
    });
  }

  /** The credential when the password matches; the same work is done for unknown users. */
  async verify(username: string, password: Buffer): Promise<CredentialRecord | null> {
    const c = this.get(username);
    const ref = c ?? DUMMY;
    const got = await scryptAsync(password.toString('utf8'), Buffer.from(ref.salt, 'base64url'), 32);
    const ok = timingSafeEqual(got, Buffer.from(ref.hash, 'base64url'));
    return ok && c ? c : null;
  }
}
