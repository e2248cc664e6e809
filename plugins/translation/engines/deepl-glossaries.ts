import type { ActiveGlossary } from '../glossaries/active.ts';
import { toTsv } from '../glossaries/entries.ts';
import type { UpstreamClient, UpstreamResponse } from './http-client.ts';
import { jsonBody } from './http-client.ts';
import { UpstreamError } from './types.ts';

/** Names of the glossaries Hearth creates upstream; anything else in the DeepL account is left alone. */
export const MIRROR_PREFIX = 'hearth-mirror ';
/** Upstream copies kept; the least recently used beyond this is deleted upstream. */
const MAX_MIRRORS = 100;

interface Mirror {
  id: Promise<string>;
  refs: Set<string>;
}

/**
 * Hearth's glossaries copied into the DeepL account (docs/translation.md#glossaries-on-every-engine), so
 * DeepL applies them natively (with inflection). A copy holds exactly the merged entries of one request's
 * pair, keyed by their digest: it is created on first use, a changed glossary gets a new copy and the old
 * ones are deleted, and copies left by an earlier run are deleted at start.
 */
export class DeeplGlossaryMirror {
  /** By digest, in least-recently-used order. */
  private readonly mirrors = new Map<string, Mirror>();
  /** Upstream ids of this run's copies (a cleanup running meanwhile must not delete them). */
  private readonly ours = new Set<string>();

  constructor(
    private readonly client: UpstreamClient,
    private readonly headers: Record<string, string>,
    private readonly failure: (res: UpstreamResponse) => UpstreamError,
  ) {}

  /**
   * The upstream id for the glossary. Creation is not tied to one attempt's cancellation: a retry of
   * the same request finds the copy made meanwhile.
   */
  idFor(glossary: ActiveGlossary): Promise<string> {
    const found = this.mirrors.get(glossary.digest);
    if (found) {
      this.mirrors.delete(glossary.digest);
      this.mirrors.set(glossary.digest, found);
      for (const ref of glossary.refs) found.refs.add(ref);
      return found.id;
    }
    const id = this.create(glossary);
    const mirror: Mirror = { id, refs: new Set(glossary.refs) };
    this.mirrors.set(glossary.digest, mirror);
    id.catch(() => {
      if (this.mirrors.get(glossary.digest) === mirror) this.mirrors.delete(glossary.digest);
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

  /** A local glossary changed or was deleted: every copy built from it goes. */
  changed(ref: string): void {
    for (const [digest, mirror] of this.mirrors) if (mirror.refs.has(ref)) this.retire(digest);
  }

  /** Deletes copies left upstream by an earlier run (best effort; a failure is retried next start). */
  async cleanup(): Promise<void> {
    const res = await this.client.request('GET', '/v3/glossaries', { headers: this.headers });
    if (res.status !== 200) return;
    const list = (jsonBody(res, 'DeepL') as { glossaries?: Array<{ glossary_id?: unknown; name?: unknown }> })
      .glossaries;
    for (const g of list ?? []) {
      const id = g.glossary_id;
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
    await this.client.request('DELETE', `/v3/glossaries/${encodeURIComponent(id)}`, {
      headers: this.headers,
    });
  }

  private async create(glossary: ActiveGlossary): Promise<string> {
    const res = await this.client.request('POST', '/v3/glossaries', {
      headers: this.headers,
      json: {
        name: `${MIRROR_PREFIX}${glossary.digest.slice(0, 16)}`,
        dictionaries: [
          {
            source_lang: glossary.source,
            target_lang: glossary.target,
            entries: toTsv(glossary.entries),
            entries_format: 'tsv',
          },
        ],
      },
    });
    if (res.status === 400) {
      // DeepL has no glossaries for this pair (or refused the entries): another engine may still serve it.
      throw new UpstreamError('unsupported', 'DeepL cannot hold this glossary');
    }
    if (res.status !== 200 && res.status !== 201) throw this.failure(res);
    const id = (jsonBody(res, 'DeepL') as { glossary_id?: unknown }).glossary_id;
    if (typeof id !== 'string')
      throw new UpstreamError('invalid_response', 'DeepL answered without a glossary id');
    this.ours.add(id);
    return id;
  }
}
