import { createDeeplEngine } from './deepl.ts';
import { createLibreEngine } from './libretranslate.ts';
import { createOpenAiEngine } from './openai.ts';
import type { Engine, EngineConfig } from './types.ts';

/** Builds an engine from its config entry (factories do no I/O). */
export function createEngine(config: EngineConfig): Engine {
  switch (config.type) {
    case 'deepl':
      return createDeeplEngine(config);
    case 'libretranslate':
      return createLibreEngine(config);
    case 'openai':
      return createOpenAiEngine(config);
  }
}
