import { languageName } from '../languages.ts';
import type { ImproveJob } from './types.ts';

const words = (id: string) => id.replace(/^prefer_/, '').replaceAll('_', ' ');
/** "a business style", "an academic style". */
const aOrAn = (id: string) => `${/^[aeiou]/.test(words(id)) ? 'an' : 'a'} ${words(id)}`;

/**
 * The system prompt for rephrase and correct on an LLM (docs/translation.md#rephrase-and-correct). The
 * answer is JSON, checked like a translation's.
 */
export function improvePrompt(job: ImproveJob): string {
  const lines = ['You are a writing assistant.'];
  if (job.kind === 'correct') {
    lines.push(
      'Correct every string of the JSON array "texts": fix spelling, grammar and punctuation only; ' +
        'change nothing else (no rewording, no change of style).',
    );
  } else {
    lines.push(
      'Rephrase every string of the JSON array "texts": clearer wording and better flow, with spelling and ' +
        'grammar corrected; keep its meaning, names, numbers and line breaks.',
    );
    const prefer = (value: string) => value.startsWith('prefer_');
    if (job.writingStyle) {
      lines.push(
        prefer(job.writingStyle)
          ? `Where it suits the text, use ${aOrAn(job.writingStyle)} writing style.`
          : `Use ${aOrAn(job.writingStyle)} writing style.`,
      );
    }
    if (job.tone) {
      lines.push(
        prefer(job.tone)
          ? `Where it suits the text, use ${aOrAn(job.tone)} tone.`
          : `Use ${aOrAn(job.tone)} tone.`,
      );
    }
  }
  lines.push(
    job.target
      ? `Write every result in ${languageName(job.target.toUpperCase())} (${job.target}), translating if needed.`
      : 'Keep each string in the language it is written in.',
    'Handle each string on its own. Do not add explanations.',
    'Answer with one JSON object only: {"improvements": [one string per input string, in the same order], ' +
      '"detected_source_languages": [the ISO 639-1 code of each input string\'s language]}.',
  );
  return lines.join('\n');
}
