import type { Logger } from 'pino';
import { type AbortLike, Cancellation } from '../cancellation.ts';
import { invalid, quotaExceeded, unavailable } from '../errors.ts';
import { rootOf } from '../languages.ts';
import { type PreparedMarkup, translateMarkup } from '../tags/markup.ts';
import { type BreakerOptions, CircuitBreaker } from './circuit-breaker.ts';
import { Deadlines } from './deadlines.ts';
import { translateWithGlossary } from './glossary-call.ts';
import { ROUTING_WAIT_MS } from './language-support.ts';
import {
  type Engine,
  type EngineJob,
  type EngineResult,
  type ImproveJob,
  type Improvement,
  type LanguageSupport,
  UpstreamError,
} from './types.ts';

/** An ordered engine list for a language pair; `*` matches anything, a root code (`EN`) its variants. */
export interface Route {
  source: string;
  target: string;
  engines: string[];
}

export interface ChainJob extends EngineJob {
  /** The texts parsed as markup, for engines that need Hearth to do the tag handling. */
  prepared: PreparedMarkup[] | null;
}

export interface ChainAnswer {
  result: EngineResult;
  engine: Engine;
}

const routing = { maxWaitMs: ROUTING_WAIT_MS };

const matches = (pattern: string, code: string | null) =>
  pattern === '*' ||
  (code !== null && (pattern.toUpperCase() === code || pattern.toUpperCase() === rootOf(code)));

/**
 * Tries the engines configured for a language pair in order, skipping those whose circuit is open or that
 * cannot honour the request, and fails over on errors worth failing over. The final error tells clients
 * whether a retry is worth it (docs/translation.md#errors-and-client-retries): 456 quota, 429/503 transient, 400 deterministic.
 */
export class EngineChain {
  private readonly breakers = new Map<string, CircuitBreaker>();
  /** Every attempt's bound, behind one timer per duration (no Node timer per request). */
  private readonly deadlines = new Deadlines();

  constructor(
    readonly engines: Engine[],
    private readonly routes: Route[],
    breaker: BreakerOptions,
    private readonly log: Logger,
    /** Told the outcome of every engine attempt (metrics). */
    private readonly observe: (engine: string, outcome: string) => void = () => {},
  ) {
    for (const engine of engines) this.breakers.set(engine.id, new CircuitBreaker(breaker));
  }

  breakerState(id: string) {
    return this.breakers.get(id)?.state ?? 'closed';
  }

  private routeFor(source: string | null, target: string): Engine[] {
    const route = this.routes.find((r) => matches(r.source, source) && matches(r.target, target));
    if (!route) return this.engines;
    return route.engines.map((id) => this.engines.find((e) => e.id === id)).filter((e): e is Engine => !!e);
  }

  /** The engines that serve the pair and can honour the request's parameters, in route order. */
  async candidates(job: EngineJob): Promise<Engine[]> {
    const routed = this.routeFor(job.source, job.target);
    const serving: Array<{ engine: Engine; support: LanguageSupport }> = [];
    for (const engine of routed) {
      const support = await engine.languages(routing);
      if (support.serves(job.source, job.target)) serving.push({ engine, support });
    }
    if (serving.length === 0) {
      const from = job.source ? `from '${job.source}' ` : '';
      throw invalid(`No configured translation engine translates ${from}into '${job.target}' (target_lang).`);
    }
    const strictFormality = job.formality === 'more' || job.formality === 'less';
    const able: Engine[] = [];
    for (const { engine, support } of serving) {
      const caps = engine.capabilities;
      if (strictFormality && !(caps.formality && support.formality.has(job.target))) continue;
      if (job.customInstructions.length > 0 && !caps.customInstructions) continue;
      if (job.modelType === 'quality_optimized' && !caps.qualityModel) continue;
      if (job.style && !caps.styleRules) continue;
      able.push(engine);
    }
    if (able.length === 0) {
      const param = strictFormality
        ? `formality=${job.formality}`
        : job.customInstructions.length > 0
          ? 'custom_instructions'
          : job.modelType === 'quality_optimized'
            ? 'model_type=quality_optimized'
            : 'style_id (style rules)';
      throw invalid(`No configured engine serving '${job.target}' can honour '${param}'.`);
    }
    return able;
  }

  async translate(job: ChainJob, signal: AbortLike): Promise<ChainAnswer> {
    const engines = await this.candidates(job);
    return this.firstAnswer(
      engines,
      (engine, s) => this.run(engine, job, s),
      signal,
      (failures) => finalError(failures, job),
    );
  }

  /**
   * Rephrase or correct on the first engine that can (DeepL's own endpoints, or an LLM), with the same
   * failover, bounds and breakers as translation.
   */
  /** The engines that can improve this job's text; 400 when none can (checked before any quota). */
  async improvers(job: Pick<ImproveJob, 'kind' | 'target'>): Promise<Engine[]> {
    const able: Engine[] = [];
    for (const engine of this.engines) {
      if (!engine.improve) continue;
      if (job.target !== null) {
        const wanted = job.target.toUpperCase();
        const { targets } = await engine.languages(routing);
        if (!targets.has(wanted) && ![...targets].some((t) => rootOf(t) === wanted)) continue;
      }
      able.push(engine);
    }
    if (able.length === 0) {
      const into = job.target ? ` in '${job.target}'` : '';
      throw invalid(`No configured engine can ${job.kind} text${into} (only DeepL and LLM engines can).`);
    }
    return able;
  }

  async improve(job: ImproveJob, signal: AbortLike): Promise<Improvement[]> {
    const able = await this.improvers(job);
    const { result } = await this.firstAnswer(
      able,
      async (engine, s) => {
        const improvements = await (engine.improve as NonNullable<Engine['improve']>)(job, s);
        if (improvements.length !== job.texts.length) {
          throw new UpstreamError('invalid_response', `${engine.id} answered ${improvements.length} texts`);
        }
        return improvements;
      },
      signal,
      (failures) => finalError(failures, { source: null, target: job.target ?? 'its own language' }),
    );
    return result;
  }

  /** Tries the engines in order until one answers; `failed` turns the failures into the client's error. */
  private async firstAnswer<T>(
    engines: Engine[],
    run: (engine: Engine, signal: AbortLike) => Promise<T>,
    signal: AbortLike,
    failed: (failures: Array<{ engine: string; error: UpstreamError }>) => Error,
  ): Promise<{ result: T; engine: Engine }> {
    const failures: Array<{ engine: string; error: UpstreamError }> = [];
    for (const engine of engines) {
      const breaker = this.breakers.get(engine.id)!;
      if (!breaker.tryAcquire()) {
        this.observe(engine.id, 'circuit_open');
        failures.push({
          engine: engine.id,
          error: new UpstreamError('transient', 'circuit open after failures'),
        });
        continue;
      }
      try {
        const result = await this.attempt(engine, (s) => run(engine, s), signal);
        breaker.success();
        this.observe(engine.id, 'ok');
        return { result, engine };
      } catch (err) {
        if (!(err instanceof UpstreamError)) {
          // Withdrawn (every caller gone, or the hub stopping): the upstream was not judged.
          breaker.release();
          this.observe(engine.id, 'withdrawn');
          throw err;
        }
        if (err.kind === 'rejected' || err.kind === 'unsupported') breaker.success();
        else breaker.failure();
        this.observe(engine.id, err.kind);
        this.log.warn({ engine: engine.id, kind: err.kind, err: err.message }, 'translation engine failed');
        failures.push({ engine: engine.id, error: err });
        if (signal.aborted) break;
      }
    }
    throw failed(failures);
  }

  /**
   * One attempt, bounded by the engine's `timeoutMs` for all its upstream calls together, so a hung
   * upstream fails over (or answers 503, which clients retry) within a client's own timeout. The
   * attempt's cancellation stops the engine's upstream calls when the bound passes or the work is
   * withdrawn; the attempt ends then even if an engine were slow to notice.
   */
  private attempt<T>(engine: Engine, call: (signal: AbortLike) => Promise<T>, outer: AbortLike): Promise<T> {
    const cancel = new Cancellation();
    // One promise settled by whichever comes first (the engine's answer, the bound, the work withdrawn):
    // cheaper per request than racing the call against a second promise.
    return new Promise<T>((resolve, reject) => {
      const stop = (reason: unknown) => {
        if (cancel.aborted) return;
        cancel.abort(reason);
        end();
        reject(reason);
      };
      const withdraw = () => stop(outer.reason);
      const deadline = this.deadlines.after(engine.timeoutMs, () =>
        stop(new UpstreamError('transient', `no answer within ${engine.timeoutMs} ms`)),
      );
      const end = () => {
        deadline.cancel();
        outer.removeEventListener('abort', withdraw);
      };
      if (outer.aborted) return withdraw();
      outer.addEventListener('abort', withdraw, { once: true });
      call(cancel).then(
        (value) => {
          end();
          resolve(value);
        },
        (err: unknown) => {
          end();
          // Once cancelled, the reason is the error (the engine's own "request aborted" says less).
          reject(cancel.aborted ? cancel.reason : err);
        },
      );
    });
  }

  private async run(engine: Engine, job: ChainJob, signal: AbortLike): Promise<EngineResult> {
    const call = (j: EngineJob) => translateWithGlossary(engine, j, signal);
    if (!job.prepared || engine.capabilities.tags) return call(job);
    let modelTypeUsed: EngineResult['modelTypeUsed'] = null;
    const translations = await translateMarkup(job.prepared, async (texts) => {
      const result = await call({ ...job, texts, tags: null });
      modelTypeUsed = result.modelTypeUsed;
      return result.translations;
    });
    return { translations, modelTypeUsed };
  }

  close(): void {
    for (const engine of this.engines) engine.close();
  }
}

function finalError(
  failures: Array<{ engine: string; error: UpstreamError }>,
  job: Pick<EngineJob, 'source' | 'target'>,
) {
  const summary = failures.map((f) => `${f.engine}: ${f.error.message}`).join('; ');
  const of = (kind: UpstreamError['kind']) => failures.filter((f) => f.error.kind === kind);
  const transient = of('transient');
  if (transient.length > 0) {
    const allBusy = transient.every((f) => f.error.status === 429);
    return unavailable(`No translation engine is available right now (${summary}).`, allBusy ? 429 : 503);
  }
  if (of('quota').length > 0) return quotaExceeded(`Upstream quota exceeded (${summary}).`);
  if (of('invalid_response').length > 0) return unavailable(`Translation engines misbehaved (${summary}).`);
  const rejected = of('rejected')[0];
  if (rejected) return invalid(rejected.error.message);
  const from = job.source ? `from '${job.source}' ` : '';
  return invalid(`No configured translation engine translates ${from}into '${job.target}' (target_lang).`);
}
