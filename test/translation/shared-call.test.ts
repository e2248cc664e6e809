/**
 * The timer and cancellation logic behind hung upstreams: the per-attempt bound of the engine chain (fake
 * timers) and the shared upstream call that is cancelled when its last waiter leaves.
 */
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AbortLike, Cancellation } from '../../plugins/translation/cancellation.ts';
import { configSchema } from '../../plugins/translation/config.ts';
import { type ChainJob, EngineChain } from '../../plugins/translation/engines/chain.ts';
import { allPairs } from '../../plugins/translation/engines/language-support.ts';
import { type Engine, type EngineResult, UpstreamError } from '../../plugins/translation/engines/types.ts';
import { SharedCall, Withdrawn } from '../../plugins/translation/shared-call.ts';

afterEach(() => {
  vi.useRealTimers();
});

const log = pino({ level: 'silent' });

const job = (over: Partial<ChainJob> = {}): ChainJob => ({
  texts: ['Hello'],
  source: 'EN',
  target: 'DE',
  formality: null,
  context: null,
  customInstructions: [],
  modelType: null,
  splitSentences: null,
  preserveFormatting: false,
  tags: null,
  prepared: null,
  ...over,
});

/** An in-process engine: `hang` never answers (and records the signal it was given), otherwise it echoes. */
function fakeEngine(id: string, opts: { hang?: boolean; timeoutMs?: number } = {}) {
  const signals: AbortLike[] = [];
  const engine: Engine = {
    id,
    type: 'openai',
    timeoutMs: opts.timeoutMs ?? 4000,
    capabilities: {
      tags: true,
      formality: true,
      customInstructions: true,
      qualityModel: true,
      glossary: 'native',
      styleRules: 'prompt',
    },
    languages: () => Promise.resolve(allPairs(['EN'], ['DE'], ['DE'])),
    translate(j, signal): Promise<EngineResult> {
      signals.push(signal);
      if (opts.hang) return new Promise(() => {}); // ignores its signal too: the chain must still move on
      return Promise.resolve({
        translations: j.texts.map((text) => ({ text: `${id}:${text}`, detectedSource: 'EN' })),
        modelTypeUsed: null,
      });
    },
    close() {},
  };
  return { engine, signals };
}

const chainOf = (...engines: Engine[]) =>
  new EngineChain(engines, [], { failureThreshold: 3, cooldownMs: 30_000 }, log);

describe('the attempt bound (fake timers)', () => {
  it('defaults to 4 s, under the 5 s a DeepL client gives one attempt', () => {
    const engineProps = (configSchema.properties as Record<string, { items: { properties: unknown } }>)
      .engines?.items.properties as Record<string, { default: number }>;
    expect(engineProps.timeoutMs?.default).toBe(4000);
  });

  it('ends a hung attempt at the engine timeout, cancels it, and fails over to the next engine', async () => {
    vi.useFakeTimers();
    const hung = fakeEngine('hung', { hang: true, timeoutMs: 4000 });
    const good = fakeEngine('good');
    let answer: string | undefined;
    const pending = chainOf(hung.engine, good.engine)
      .translate(job(), new AbortController().signal)
      .then((a) => {
        answer = a.result.translations[0]?.text;
      });
    await vi.advanceTimersByTimeAsync(3999);
    expect(answer).toBeUndefined();
    expect(hung.signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(answer).toBe('good:Hello');
    expect(hung.signals[0]?.aborted).toBe(true);
    expect(hung.signals[0]?.reason).toBeInstanceOf(UpstreamError);
    expect(String((hung.signals[0]?.reason as Error | undefined)?.message)).toContain('4000 ms');
  });

  it('answers a retryable 503 at the bound when no engine answers', async () => {
    vi.useFakeTimers();
    const hung = fakeEngine('hung', { hang: true, timeoutMs: 2500 });
    const outcome = chainOf(hung.engine)
      .translate(job(), new AbortController().signal)
      .catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(2500);
    const err = (await outcome) as { status?: number; headers?: Record<string, string> };
    expect([err.status, err.headers?.['Retry-After']]).toEqual([503, '1']);
  });

  it('withdraws an attempt at once when its work is withdrawn, without counting it against the engine', async () => {
    vi.useFakeTimers();
    const hung = fakeEngine('hung', { hang: true });
    const chain = new EngineChain([hung.engine], [], { failureThreshold: 1, cooldownMs: 30_000 }, log);
    for (let i = 0; i < 3; i++) {
      const work = new AbortController();
      const outcome = chain.translate(job(), work.signal).catch((err: unknown) => err);
      await vi.advanceTimersByTimeAsync(10);
      work.abort(new Withdrawn('gone'));
      expect(await outcome).toBeInstanceOf(Withdrawn);
      expect(hung.signals[i]?.aborted).toBe(true);
    }
    expect(chain.breakerState('hung')).toBe('closed');
  });
});

describe('shared upstream calls', () => {
  it('keep running while any joined caller waits and are cancelled when the last one leaves', async () => {
    let workSignal: AbortLike | undefined;
    let finish: ((v: string) => void) | undefined;
    const abandoned = vi.fn();
    const call = new SharedCall<string>((signal) => {
      workSignal = signal;
      return new Promise((resolve) => {
        finish = resolve;
      });
    }, abandoned);
    const a = new AbortController();
    const b = new AbortController();
    const first = call.join(a.signal).catch((err: unknown) => err);
    const second = call.join(b.signal).catch((err: unknown) => err);
    a.abort(new Error('client a gone'));
    expect(((await first) as Error).message).toBe('client a gone');
    expect([workSignal?.aborted, abandoned.mock.calls.length]).toEqual([false, 0]);
    b.abort(new Error('client b gone'));
    expect(((await second) as Error).message).toBe('client b gone');
    expect([workSignal?.aborted, abandoned.mock.calls.length, call.abandoned]).toEqual([true, 1, true]);
    expect(workSignal?.reason).toBeInstanceOf(Withdrawn);
    finish?.('late');
  });

  it('answer every waiter, and leaving after the answer cancels nothing', async () => {
    let workSignal: AbortLike | undefined;
    const abandoned = vi.fn();
    const call = new SharedCall<string>((signal) => {
      workSignal = signal;
      return Promise.resolve('done');
    }, abandoned);
    const a = new AbortController();
    expect(await call.join(a.signal)).toBe('done');
    expect(await call.join(new AbortController().signal)).toBe('done');
    a.abort();
    expect([workSignal?.aborted, abandoned.mock.calls.length]).toEqual([false, 0]);
  });

  it('withdraw the work when the hub stops', async () => {
    const hub = new AbortController();
    let workSignal: AbortLike | undefined;
    const call = new SharedCall<string>(
      (signal) => {
        workSignal = signal;
        return new Promise(() => {});
      },
      () => {},
      hub.signal,
    );
    const waiting = call.join(new AbortController().signal).catch((err: unknown) => err);
    hub.abort();
    expect(workSignal?.reason).toBeInstanceOf(Withdrawn);
    expect(waiting).toBeDefined();
  });
});

describe('Cancellation', () => {
  it('behaves like an AbortSignal: listeners run once, late listeners never, removed ones not at all', () => {
    const cancel = new Cancellation();
    const first = vi.fn();
    const removed = vi.fn();
    cancel.addEventListener('abort', first);
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    const reason = new Error('gone');
    cancel.abort(reason);
    cancel.abort(new Error('again'));
    const late = vi.fn();
    cancel.addEventListener('abort', late);
    expect([cancel.aborted, cancel.reason]).toEqual([true, reason]);
    expect([first.mock.calls.length, removed.mock.calls.length, late.mock.calls.length]).toEqual([1, 0, 0]);
  });
});
