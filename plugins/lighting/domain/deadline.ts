/**
 * A bound on driver calls. A driver whose bridge or stick stops answering must not hold an HTTP request,
 * a light's command queue or a resync open forever (a driver must never hang the API). The call itself is not
 * cancelled; its late result is ignored.
 *
 * Every light command is bounded, so the bound must be cheap: calls with the same bound share one timer
 * (their deadlines fall in the order they started) instead of arming and clearing a timer each.
 */
export class LateError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

interface Pending {
  at: number;
  settled: boolean;
  late(): void;
}

/** The calls bounded by one duration, oldest first, and the timer for the oldest unsettled one. */
class Lane {
  #items: Pending[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    readonly ms: number,
    private readonly onEmpty: () => void,
  ) {}

  add(p: Pending): void {
    this.#items.push(p);
    if (!this.#timer) this.#arm(this.ms);
  }

  /** Drops settled calls from the front (they usually settle in order, long before their deadline). */
  trim(): void {
    const items = this.#items;
    while (this.#head < items.length && items[this.#head]!.settled) this.#head++;
    if (this.#head === items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > items.length) {
      this.#items = items.slice(this.#head);
      this.#head = 0;
    }
  }

  #arm(delay: number): void {
    // Unref'd: the timer outlives the calls it watched (it is not cleared when they settle), and must not
    // hold a stopping process open until it fires.
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(delay)));
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = null;
    const now = performance.now();
    this.trim();
    while (this.#head < this.#items.length && this.#items[this.#head]!.at <= now) {
      const p = this.#items[this.#head++]!;
      if (p.settled) continue;
      p.settled = true;
      p.late();
    }
    this.trim();
    const next = this.#items[this.#head];
    if (next) this.#arm(next.at - now);
    else this.onEmpty();
  }
}

const lanes = new Map<number, Lane>();

/** Settles like `work`, or rejects with a LateError after `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let lane = lanes.get(ms);
  if (!lane) {
    lane = new Lane(ms, () => lanes.delete(ms));
    lanes.set(ms, lane);
  }
  const owner = lane;
  return new Promise<T>((resolve, reject) => {
    const p: Pending = {
      at: performance.now() + ms,
      settled: false,
      late() {
        reject(new LateError(ms));
      },
    };
    owner.add(p);
    work.then(
      (value) => {
        p.settled = true;
        owner.trim();
        resolve(value);
      },
      (err: unknown) => {
        p.settled = true;
        owner.trim();
        reject(err);
      },
    );
  });
}
