import type { ActiveGlossary } from '../glossaries/active.ts';
import { toTsv } from '../glossaries/entries.ts';
import type { ActiveStyle } from '../style-rules/active.ts';
import type { UpstreamClient, UpstreamResponse } from './http-client.ts';
import { jsonBody } from './http-client.ts';
import { UpstreamError } from './types.ts';

/** Names of the copies Hearth creates upstream; anything else in the DeepL account is left alone. */
export const MIRROR_PREFIX = 'hearth-mirror ';
/** Upstream copies kept (per kind); the least recently used beyond this is deleted upstream. */
const MAX_MIRRORS = 100;

/** Something local that DeepL holds a copy of: identified by a digest of its content. */
export interface Mirrored {
  digest: string;
  /** `account\tid` of each local resource the copy was built from. */
  refs: readonly string[];
}

/** What differs between glossary and style rule copies: the path, the id field and the body. */
export interface MirrorKind<T extends Mirrored> {
  path: string;
  listField: string;
  idField: string;
  /** For messages: "glossary", "style rule list". */
  what: string;
  body(item: T, name: string): Record<string, unknown>;
}

export const GLOSSARY_COPIES: MirrorKind<ActiveGlossary> = {
  path: '/v3/glossaries',
  listField: 'glossaries',
  idField: 'glossary_id',
  what: 'glossary',
  body: (glossary, name) => ({
    name,
    dictionaries: [
      {
        source_lang: glossary.source,
        target_lang: glossary.target,
        entries: toTsv(glossary.entries),
        entries_format: 'tsv',
      },
    ],
  }),
};

export const STYLE_COPIES: MirrorKind<ActiveStyle> = {
  path: '/v3/style_rules',
  listField: 'style_rules',
  idField: 'style_id',
  what: 'style rule list',
  body: (style, name) => ({
    name,
    language: style.language,
    configured_rules: style.configuredRules,
    custom_instructions: style.instructions.map(({ label, prompt, source_language }) => ({
      label,
      prompt,
      ...(source_language ? { source_language } : {}),
    })),
  }),
};

interface Mirror {
  id: Promise<string>;
  refs: Set<string>;
}

/**
 * Hearth's glossaries and style rule lists copied into the DeepL account
 * (docs/translation.md#glossaries-on-every-engine), so DeepL applies them natively (glossaries with
 * inflection). A glossary copy holds exactly the merged entries of one request's pair, keyed by their
 * digest: it is created on first use, a changed source gets a new copy and the old ones are deleted, and
 * copies left by an earlier run are deleted at start.
 */
export class DeeplMirror<T extends Mirrored> {
  /** By digest, in least-recently-used order. */
  private readonly mirrors = new Map<string, Mirror>();
  /** Upstream ids of this run's copies (a cleanup running meanwhile must not delete them). */
  private readonly ours = new Set<string>();

  constructor(
    private readonly kind: MirrorKind<T>,
    private readonly client: UpstreamClient,
    private readonly headers: Record<string, string>,
    private readonly failure: (res: UpstreamResponse) => UpstreamError,
  ) {}

  /**
   * The upstream id for the glossary. Creation is not tied to one attempt's cancellation: a retry of
   * the same request finds the copy made meanwhile.
   */
  idFor(item: T): Promise<string> {
    const found = this.mirrors.get(item.digest);
    if (found) {
      this.mirrors.delete(item.digest);
      this.mirrors.set(item.digest, found);
      for (const ref of item.refs) found.refs.add(ref);
      return found.id;
    }
    const id = this.create(item);
    const mirror: Mirror = { id, refs: new Set(item.refs) };
    this.mirrors.set(item.digest, mirror);
    id.catch(() => {
      if (this.mirrors.get(item.digest) === mirror) this.mirrors.delete(item.digest);
    });
    while (this.mirrors.size > MAX_MIRRORS) {
      const oldest = this.mirrors.keys().next().value as string;
      this.retire(oldest);
    }
    return id;
  }

  /** Forgets a copy DeepL no longer has (deleted in the DeepL account). */
  lost(digest: string): void {
    this.mirrors.delete(digest);
  }

  /** A local glossary or list changed or was deleted: every copy built from it goes. */
  changed(ref: string): void {
    for (const [digest, mirror] of this.mirrors) if (mirror.refs.has(ref)) this.retire(digest);
  }

  /** Deletes copies left upstream by an earlier run (best effort; a failure is retried next start). */
  async cleanup(): Promise<void> {
    const res = await this.client.request('GET', this.kind.path, { headers: this.headers });
    if (res.status !== 200) return;
    const list = (jsonBody(res, 'DeepL') as Record<string, unknown>)[this.kind.listField];
    for (const g of Array.isArray(list) ? (list as Array<Record<string, unknown>>) : []) {
      const id = g[this.kind.idField];
      if (
        typeof g.name === 'string' &&
        g.name.startsWith(MIRROR_PREFIX) &&
        typeof id === 'string' &&
        !this.ours.has(id)
      ) {
        await this.remove(id);
      }
    }
  }

  private retire(digest: string): void {
    const mirror = this.mirrors.get(digest);
    if (!mirror) return;
    this.mirrors.delete(digest);
    mirror.id.then((id) => this.remove(id)).catch(() => {});
  }

  private async remove(id: string): Promise<void> {
    this.ours.delete(id);
    await this.client.request('DELETE', `${this.kind.path}/${encodeURIComponent(id)}`, {
      headers: this.headers,
    });
  }

  private async create(item: T): Promise<string> {
    const res = await this.client.request('POST', this.kind.path, {
      headers: this.headers,
      json: this.kind.body(item, `${MIRROR_PREFIX}${item.digest.slice(0, 16)}`),
    });
    if (res.status === 400) {
      // DeepL cannot hold this one (no glossaries for the pair, a language without style rules…):
      // another engine may still serve the request.
      throw new UpstreamError('unsupported', `DeepL cannot hold this ${this.kind.what}`);
    }
    if (res.status !== 200 && res.status !== 201) throw this.failure(res);
    const id = (jsonBody(res, 'DeepL') as Record<string, unknown>)[this.kind.idField];
    if (typeof id !== 'string') {
      throw new UpstreamError('invalid_response', `DeepL answered without a ${this.kind.idField}`);
    }
    this.ours.add(id);
    return id;
  }
}
