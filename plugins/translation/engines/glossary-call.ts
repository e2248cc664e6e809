import type { AbortLike } from '../cancellation.ts';
import { checkTerms, termsIn, withPlaceholders } from '../glossaries/enforce.ts';
import type { Engine, EngineJob, EngineResult } from './types.ts';

/**
 * One engine call with the request's glossary applied the way the engine can honour it
 * (docs/translation.md#glossaries-on-every-engine): DeepL gets its own upstream glossary, LibreTranslate
 * placeholders, an LLM prompt constraints followed by a check.
 */
export async function translateWithGlossary(
  engine: Engine,
  job: EngineJob,
  signal: AbortLike,
): Promise<EngineResult> {
  const glossary = job.glossary;
  if (!glossary || engine.capabilities.glossary === 'native') return engine.translate(job, signal);
  const plain: EngineJob = { ...job, glossary: null };
  if (engine.capabilities.glossary === 'placeholders') {
    return withPlaceholders(job.texts, glossary.entries, (texts, html) =>
      engine.translate({ ...plain, texts, html }, signal),
    );
  }
  const { terms } = termsIn(job.texts, glossary.entries);
  const result = await engine.translate({ ...plain, glossaryTerms: terms }, signal);
  checkTerms(job.texts, result, glossary.entries);
  return result;
}
