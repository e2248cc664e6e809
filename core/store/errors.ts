import { HearthError } from '../errors.ts';

/** Why the store refused an operation. Callers branch on `code`, never on the message. */
export type StoreErrorCode = 'store_closed' | 'store_in_use' | 'store_bad_name';

export class StoreError extends HearthError {
  declare readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string) {
    super(code, message);
  }
}

/** Owners and names end up in file names (`<owner>.<name>.json`): no dots, slashes or other surprises. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function assertSafeName(kind: 'owner' | 'name', value: string): void {
  if (!SAFE_NAME.test(value)) {
    throw new StoreError(
      'store_bad_name',
      `store ${kind} "${value}" must be 1-64 characters of letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
}
