/** `plugins.translation` config: JSON Schema (every property titled, described, defaulted) and its type. */
import type { JsonSchema } from '../../core/sdk.ts';
import type { Route } from './engines/chain.ts';
import type { EngineConfig } from './engines/types.ts';

export interface EngineEntry {
  type: EngineConfig['type'];
  id: string;
  url: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  languages: string[];
}

export interface TranslationConfig {
  engines: EngineEntry[];
  routes: Route[];
  circuitBreaker: { failureThreshold: number; cooldownMs: number };
  cache: { maxEntries: number; maxBytes: number; ttlMs: number };
  analyticsPageSize: number;
  documents: {
    maxBytes: number;
    maxCharacters: number;
    monthlyLimit: number;
    teamMonthlyLimit: number;
    maxQueued: number;
    retentionMs: number;
  };
}

const engineSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: {
      enum: ['deepl', 'libretranslate', 'openai'],
      default: 'deepl',
      title: 'Engine type',
      description:
        'deepl (the DeepL API), libretranslate, or openai (any OpenAI-compatible chat endpoint, e.g. Ollama).',
    },
    id: {
      type: 'string',
      default: '',
      title: 'Engine id',
      description: 'Name used in routes and logs. Empty: the type (with a number when a type repeats).',
    },
    url: {
      type: 'string',
      default: '',
      title: 'Base URL',
      description:
        'Empty: the usual address (DeepL: api.deepl.com, or api-free.deepl.com for a key ending in ":fx"; ' +
        'LibreTranslate: http://127.0.0.1:5000; openai: Ollama at http://127.0.0.1:11434/v1).',
    },
    apiKey: {
      type: 'string',
      default: '',
      title: 'Upstream API key',
      description: 'Key for the upstream (required for DeepL). Never logged.',
    },
    model: {
      type: 'string',
      default: '',
      title: 'Model',
      description:
        'Chat model name for openai engines (e.g. "gemma3:1b"); required there, ignored elsewhere.',
    },
    timeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 600000,
      default: 4000,
      title: 'Attempt timeout (ms)',
      description:
        "How long one attempt at this engine may take before Hearth fails over to the next engine (or answers 503, which clients retry). Keep it under the clients' own timeout: DeepL's clients give up an attempt after 5 s.",
    },
    languages: {
      type: 'array',
      items: { type: 'string' },
      default: [],
      title: 'Languages (openai only)',
      description:
        'Language codes the model handles well (e.g. ["en","de","fr"]). Empty: every DeepL language.',
    },
  },
};

export const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    engines: {
      type: 'array',
      items: engineSchema,
      default: [],
      title: 'Translation engines',
      description: 'Upstream engines, in the default failover order. Empty: translation requests get a 400.',
    },
    routes: {
      type: 'array',
      default: [],
      title: 'Routes per language pair',
      description:
        'Ordered engine lists for language pairs; the first matching route wins, otherwise all engines in order.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['engines'],
        properties: {
          source: {
            type: 'string',
            default: '*',
            title: 'Source language',
            description: '"*", a code (EN) or a root code matching its variants.',
          },
          target: {
            type: 'string',
            default: '*',
            title: 'Target language',
            description: '"*", a code (EN-GB) or a root code (EN) matching its variants.',
          },
          engines: {
            type: 'array',
            items: { type: 'string' },
            default: [],
            title: 'Engines',
            description: 'Engine ids to try in this order.',
          },
        },
      },
    },
    circuitBreaker: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Circuit breaker',
      description: 'Stops calling an engine that keeps failing, for a while.',
      properties: {
        failureThreshold: {
          type: 'integer',
          minimum: 1,
          default: 5,
          title: 'Failures to open',
          description: 'Consecutive failures after which the engine is skipped.',
        },
        cooldownMs: {
          type: 'integer',
          minimum: 1,
          default: 30000,
          title: 'Cooldown (ms)',
          description: 'How long an engine is skipped before one trial request is sent to it again.',
        },
      },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Translation cache',
      description:
        'In-memory LRU of translations, keyed by the text and every option that affects the output.',
      properties: {
        maxEntries: {
          type: 'integer',
          minimum: 0,
          default: 5000,
          title: 'Entries',
          description: 'How many translated texts to keep (0 disables the cache).',
        },
        maxBytes: {
          type: 'integer',
          minimum: 0,
          default: 16777216,
          title: 'Memory budget (bytes)',
          description: 'Approximate memory the cache may hold; least recently used texts go first.',
        },
        ttlMs: {
          type: 'integer',
          minimum: 1000,
          default: 86400000,
          title: 'Lifetime (ms)',
          description: 'How long a cached translation is reused.',
        },
      },
    },
    analyticsPageSize: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
      title: 'Custom-tag report page size',
      description: 'Entries per page of GET /v2/admin/analytics/custom-tags.',
    },
    documents: {
      type: 'object',
      additionalProperties: false,
      default: {},
      title: 'Document translation',
      description: 'Limits of POST /v2/document (docs/translation.md#documents).',
      properties: {
        maxBytes: {
          type: 'integer',
          minimum: 1024,
          maximum: 104857600,
          default: 10485760,
          title: 'Largest file (bytes)',
          description: 'A larger upload is refused with 413.',
        },
        maxCharacters: {
          type: 'integer',
          minimum: 1,
          default: 1000000,
          title: 'Most characters per document',
          description: 'A document with more text to translate is refused with 400.',
        },
        monthlyLimit: {
          type: 'integer',
          minimum: 0,
          default: 0,
          title: 'Documents per key and month',
          description:
            'Uploads past it get 456 (0: no limit). Reported as document_count/document_limit in /v2/usage.',
        },
        teamMonthlyLimit: {
          type: 'integer',
          minimum: 0,
          default: 0,
          title: 'Documents per month (all keys)',
          description:
            'Uploads past it get 456 (0: no limit). Reported as team_document_count/team_document_limit.',
        },
        maxQueued: {
          type: 'integer',
          minimum: 1,
          default: 20,
          title: 'Documents waiting at once',
          description:
            'Uploads past it get 429 (clients retry later). Documents are translated one at a time.',
        },
        retentionMs: {
          type: 'integer',
          minimum: 60000,
          default: 86400000,
          title: 'Result lifetime (ms)',
          description: 'How long an untranslated upload, a result and its status are kept.',
        },
      },
    },
  },
};

/** Gives every engine an id (its type, numbered when a type repeats). */
export function engineConfigs(entries: EngineEntry[]): EngineConfig[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const n = (seen.get(e.type) ?? 0) + 1;
    seen.set(e.type, n);
    return { ...e, id: e.id || (n === 1 ? e.type : `${e.type}-${n}`) };
  });
}
