/**
 * Pairing as a job a restart can read back (`hue.pairings.json`): started by the admin API, the CLI or
 * the console, it waits for the link button until its deadline. The job is durable before anyone is told
 * to press the button; a hub restarted meanwhile resumes waiting until the same deadline, and a job whose
 * bridge was saved before the restart is marked paired. Finished jobs are kept briefly for the caller to
 * read (the last 20).
 */
import { randomUUID } from 'node:crypto';
import type { DocStore } from '../../core/sdk.ts';
import { PairingError, type PairingResult } from '../../drivers/hue/pairing.ts';
import type { BridgeRecord } from './bridges.ts';

export type PairingState = 'waiting' | 'paired' | 'failed';
/** Why a pairing failed, as the API names it. */
export type PairingFailure =
  | 'link_button_not_pressed'
  | 'bridge_untrusted'
  | 'pairing_refused'
  | 'bridge_unreachable'
  | 'pairing_failed';

export interface PairingJob {
  id: string;
  host: string;
  port: number;
  site: string;
  /** Expected by the caller, or read from the certificate once the bridge answered. */
  bridgeId?: string;
  state: PairingState;
  startedAt: string;
  /** When the wait for the link button ends (ISO). */
  deadline: string;
  /** Known once the bridge answered: how it is trusted. */
  trust?: 'root' | 'pinned';
  fingerprint256?: string;
  error?: { code: PairingFailure; message: string };
  finishedAt?: string;
}

export interface PairingsDoc {
  jobs: PairingJob[];
}

export interface PairingRequest {
  host: string;
  port: number;
  site: string;
  bridgeId?: string;
}

export interface PairingDeps {
  /** One attempt until `deadlineAt`; `onWaiting` once the bridge is reachable and trusted. */
  pair(
    req: PairingRequest,
    deadlineAt: number,
    onWaiting: (info: { bridgeId: string; pinned: boolean; fingerprint256: string }) => void,
  ): Promise<PairingResult>;
  /** Stores the paired bridge (key first) and starts its driver. */
  complete(req: PairingRequest, paired: PairingResult): Promise<BridgeRecord>;
  bridge(bridgeId: string): BridgeRecord | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  onError(err: unknown, job: PairingJob): void;
}

const KEEP = 20;

export function failureOf(err: unknown): { code: PairingFailure; message: string } {
  if (!(err instanceof PairingError)) return { code: 'pairing_failed', message: 'pairing failed' };
  const code: PairingFailure =
    err.code === 'timeout'
      ? 'link_button_not_pressed'
      : err.code === 'unreachable'
        ? 'bridge_unreachable'
        : err.code === 'untrusted'
          ? 'bridge_untrusted'
          : 'pairing_refused';
  return { code, message: err.message };
}

export class Pairings {
  readonly #doc: DocStore<PairingsDoc>;
  readonly #deps: PairingDeps;
  readonly #running = new Map<string, Promise<PairingJob>>();

  constructor(doc: DocStore<PairingsDoc>, deps: PairingDeps) {
    this.#doc = doc;
    this.#deps = deps;
  }

  get(id: string): PairingJob | undefined {
    return this.#doc.data.jobs.find((j) => j.id === id);
  }

  /** Resumes the jobs a restart interrupted (call once at start). */
  resume(): void {
    for (const job of this.#doc.data.jobs) {
      if (job.state !== 'waiting') continue;
      const saved = job.bridgeId ? this.#deps.bridge(job.bridgeId) : undefined;
      if (saved && saved.pairedAt >= job.startedAt) {
        void this.#finish(job.id, { state: 'paired', trust: saved.pinnedCert ? 'pinned' : 'root' });
        continue;
      }
      this.#run(job);
    }
  }

  /** Starts a pairing; resolves once the job is durable (the caller may now prompt for the button). */
  async start(req: PairingRequest): Promise<PairingJob> {
    const now = Date.now();
    const job: PairingJob = {
      id: randomUUID(),
      host: req.host,
      port: req.port,
      site: req.site,
      ...(req.bridgeId ? { bridgeId: req.bridgeId } : {}),
      state: 'waiting',
      startedAt: new Date(now).toISOString(),
      deadline: new Date(now + this.#deps.timeoutMs).toISOString(),
    };
    await this.#doc.commit((d) => {
      const finished = d.jobs.filter((j) => j.state !== 'waiting');
      const drop = new Set(finished.slice(0, Math.max(0, finished.length - KEEP + 1)).map((j) => j.id));
      d.jobs = [...d.jobs.filter((j) => !drop.has(j.id)), job];
    });
    this.#run(job);
    return { ...job };
  }

  /** Resolves with the job once it is no longer waiting (or the hub stops). */
  settled(id: string): Promise<PairingJob | undefined> {
    return this.#running.get(id) ?? Promise.resolve(this.get(id));
  }

  #run(job: PairingJob): void {
    const req: PairingRequest = {
      host: job.host,
      port: job.port,
      site: job.site,
      ...(job.bridgeId ? { bridgeId: job.bridgeId } : {}),
    };
    const run = (async (): Promise<PairingJob> => {
      try {
        const paired = await this.#deps.pair(req, Date.parse(job.deadline), (info) => {
          void this.#update(job.id, {
            bridgeId: info.bridgeId,
            trust: info.pinned ? 'pinned' : 'root',
            fingerprint256: info.fingerprint256,
          });
        });
        await this.#deps.complete(req, paired);
        return await this.#finish(job.id, {
          state: 'paired',
          bridgeId: paired.bridgeId,
          trust: paired.pinnedCert ? 'pinned' : 'root',
          fingerprint256: paired.fingerprint256,
        });
      } catch (err) {
        // Stopped with the hub: the job stays waiting, and the next start resumes it.
        if (this.#deps.signal.aborted) return this.get(job.id) ?? job;
        if (!(err instanceof PairingError)) this.#deps.onError(err, job);
        return await this.#finish(job.id, { state: 'failed', error: failureOf(err) });
      }
    })();
    this.#running.set(job.id, run);
    void run.finally(() => this.#running.delete(job.id));
  }

  async #update(id: string, change: Partial<PairingJob>): Promise<PairingJob> {
    await this.#doc.commit((d) => {
      d.jobs = d.jobs.map((j) => (j.id === id ? { ...j, ...change } : j));
    });
    return { ...(this.get(id) as PairingJob) };
  }

  #finish(id: string, change: Partial<PairingJob>): Promise<PairingJob> {
    return this.#update(id, { ...change, finishedAt: new Date().toISOString() });
  }
}

/** What the API shows of a job (no key, no certificate). */
export function pairingView(job: PairingJob) {
  return {
    ...job,
    ...(job.state === 'waiting' ? { prompt: 'Press the link button on the Hue bridge now' } : {}),
  };
}
