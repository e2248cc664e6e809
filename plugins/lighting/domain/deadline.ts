/**
 * A bound on driver calls. A driver whose bridge or stick stops answering must not hold an HTTP request,
 * a light's command queue or a resync open forever (issue 3: never a hang). The call itself is not
 * cancelled; its late result is ignored.
 */
export class LateError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** Settles like `work`, or rejects with a LateError after `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LateError(ms)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
