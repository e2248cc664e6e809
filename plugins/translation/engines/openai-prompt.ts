import { languageName, rootOf } from '../languages.ts';
import type { EngineJob } from './types.ts';

const words = (id: string) => id.replaceAll('_', ' ');

/**
 * A style rule list as prompt lines (docs/translation.md#style-rules): each configured rule as
 * "category, option: choice", then each custom instruction. An instruction for one source language says
 * so, unless the request's source is known to be another (then it is left out).
 */
function styleLines(job: EngineJob): string[] {
  const style = job.style;
  if (!style) return [];
  const lines: string[] = [];
  for (const [category, options] of Object.entries(style.configuredRules)) {
    for (const [option, choice] of Object.entries(options)) {
      lines.push(`- ${words(category)}, ${words(option)}: ${words(choice)}`);
    }
  }
  const source = job.source ? rootOf(job.source).toLowerCase() : null;
  for (const i of style.instructions) {
    const from = i.source_language ? rootOf(i.source_language.toUpperCase()).toLowerCase() : null;
    if (from && source && from !== source) continue;
    const only = from ? ` (only for text written in ${languageName(from.toUpperCase())})` : '';
    lines.push(`- ${i.label}: ${i.prompt}${only}`);
  }
  return lines.length > 0 ? ['Apply this style guide to every translation:', ...lines] : [];
}

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
  if (job.style) lines.push(...styleLines(job));
  if (job.glossaryTerms && job.glossaryTerms.length > 0) {
    // Prompt constraints for a glossary (docs/translation.md#glossaries-on-every-engine); the answer is checked.
    lines.push(
      'Glossary: translate each of these source terms with exactly the given target term:',
      ...job.glossaryTerms.map(([s, t]) => `- ${JSON.stringify(s)} → ${JSON.stringify(t)}`),
    );
  }
  return lines.join('\n');
}
