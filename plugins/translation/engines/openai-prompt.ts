import { languageName } from '../languages.ts';
import type { EngineJob } from './types.ts';

const FORMALITY_RULES = new Map<string, string>([
  ['more', 'Use a formal register (polite forms of address).'],
  ['prefer_more', 'Prefer a formal register (polite forms of address) where the language has one.'],
  ['less', 'Use an informal register (familiar forms of address).'],
  ['prefer_less', 'Prefer an informal register (familiar forms of address) where the language has one.'],
]);

/**
 * The system prompt. docs/translation.md#openai-compatible-chat-and-ollama: an LLM is the only upstream class that can honour formality,
 * `context` and custom instructions, so they go here; the answer is requested as JSON and checked.
 */
export function systemPrompt(job: EngineJob): string {
  const from = job.source
    ? `from ${languageName(job.source)} (${job.source})`
    : 'from the language it is written in';
  const lines = [
    'You are a translation engine.',
    `Translate every string of the JSON array "texts" ${from} into ${languageName(job.target)} (${job.target}).`,
    'Translate each string on its own: the strings share no context with each other.',
    'Keep line breaks, numbers, names, URLs and placeholders as they are. Do not add explanations.',
    'Answer with one JSON object only: {"translations": [one translated string per input string, in the same ' +
      'order], "detected_source_languages": [the ISO 639-1 code of each input string\'s language]}.',
  ];
  const formality = job.formality ? FORMALITY_RULES.get(job.formality) : undefined;
  if (formality) lines.push(formality);
  if (job.context) {
    lines.push(`Context for disambiguation only (never translate or repeat it): ${job.context}`);
  }
  if (job.customInstructions.length > 0) {
    lines.push('Follow these instructions:', ...job.customInstructions.map((i) => `- ${i}`));
  }
  if (job.glossaryTerms && job.glossaryTerms.length > 0) {
    // Prompt constraints for a glossary (docs/translation.md#glossaries-on-every-engine); the answer is checked.
    lines.push(
      'Glossary: translate each of these source terms with exactly the given target term:',
      ...job.glossaryTerms.map(([s, t]) => `- ${JSON.stringify(s)} → ${JSON.stringify(t)}`),
    );
  }
  return lines.join('\n');
}
