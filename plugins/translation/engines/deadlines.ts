/**
 * Time bounds for upstream work without a Node timer per request. Every translation is bounded twice (the
 * engine attempt and the HTTP call inside it); a `setTimeout` + `clearTimeout` pair each made Node build a
 * Timeout object and, at one client, a new timer list for every request (the list empties when the request
 * ends, so the next one starts it again). Here bounds of one duration wait in one queue, in the order they
 * were set (so also in deadline order), behind a single timer that stays armed while the queue is in use:
 * setting a bound appends to a list, ending it unlinks it, and neither touches a timer in the steady state.
 *
 * A bound fires no earlier than its duration and at most about a millisecond late, like `setTimeout`.
 */

/** A pending bound; `cancel()` when the work it bounds ended first. */
export interface Deadline {
  cancel(): void;
}

class Entry implements Deadline {
  prev: Entry | null = null;
  next: Entry | null = null;
  /** The queue it waits in; null once fired or cancelled. */
  queue: Queue | null;

  constructor(
    queue: Queue,
    /** `performance.now()` at which it is due. */
    readonly at: number,
    readonly fire: () => void,
  ) {
    this.queue = queue;
  }

  cancel(): void {
    this.queue?.unlink(this);
  }
}

/** The bounds of one duration, oldest first, and the one timer that serves them. */
class Queue {
  head: Entry | null = null;
  tail: Entry | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The entry the timer was armed for: it is due when the timer fires, whatever the clock says. */
  private armedFor: Entry | null = null;
  /** When the armed timer is due; a timer long overdue was lost (fake timers swapped out) and is re-armed. */
  private armedAt = 0;

  constructor(private readonly ms: number) {}

  add(fire: () => void): Entry {
    const now = performance.now();
    const entry = new Entry(this, now + this.ms, fire);
    if (this.tail) {
      this.tail.next = entry;
      entry.prev = this.tail;
    } else this.head = entry;
    this.tail = entry;
    if (this.timer === null || now > this.armedAt + 1000) this.arm(this.head as Entry, now);
    return entry;
  }

  unlink(entry: Entry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = entry.queue = null;
    // The timer stays armed even when the queue empties: at one client it empties after every request,
    // and clearing it would mean arming a new one for the next. It fires once, finds nothing, and stops.
  }

  private arm(entry: Entry, now: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = entry;
    this.armedAt = entry.at;
    this.timer = setTimeout(() => this.expire(), Math.max(1, Math.ceil(entry.at - now)));
    // Only upstream work is bounded here, and its sockets keep the process alive while it runs; a timer
    // left armed after the last request must not hold a stopping hub up.
    this.timer.unref();
  }

  private expire(): void {
    this.timer = null;
    const armed = this.armedFor;
    this.armedFor = null;
    const now = performance.now();
    const due: Entry[] = [];
    // Timers may fire a fraction of a millisecond before the clock reads the deadline (both round).
    while (this.head && (this.head === armed || this.head.at <= now + 1)) {
      const entry = this.head;
      due.push(entry);
      this.unlink(entry);
    }
    if (this.head) this.arm(this.head, now);
    for (const entry of due) {
      try {
        entry.fire();
      } catch (err) {
        // As a timer callback's exception would be: uncaught, without stopping the other bounds.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/** One queue (and at most one armed timer) per duration in use. */
export class Deadlines {
  private readonly queues = new Map<number, Queue>();

  /** Calls `fire` once `ms` have passed, unless cancelled first. */
  after(ms: number, fire: () => void): Deadline {
    let queue = this.queues.get(ms);
    if (!queue) {
      queue = new Queue(ms);
      this.queues.set(ms, queue);
    }
    return queue.add(fire);
  }
}
