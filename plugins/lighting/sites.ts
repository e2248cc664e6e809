/** Sites: created, renamed, re-keyed and deleted by the operator; keys are stored as sha256 hashes only. */
import { type Bus, type DocStore, HttpError } from '../../core/sdk.ts';
import { hashKey, newId, newSiteKey } from './domain/ids.ts';
import type { ConfigDoc, SiteRecord, SiteSummary } from './types.ts';

const summary = (s: SiteRecord): SiteSummary => ({ siteid: s._id, name: s.name, created: s.created });

export function siteName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new HttpError(400, 'invalid_request', 'name is required');
  if (raw.length > 100) throw new HttpError(400, 'invalid_request', 'name must be at most 100 characters');
  return raw.trim();
}

export class Sites {
  readonly #doc: DocStore<ConfigDoc>;
  readonly #bus: Bus;
  /** key hash → site id, rebuilt on every change (sites change rarely, keys are looked up per request). */
  #byHash = new Map<string, string>();

  constructor(doc: DocStore<ConfigDoc>, bus: Bus) {
    this.#doc = doc;
    this.#bus = bus;
    this.#reindex();
  }

  #reindex(): void {
    this.#byHash = new Map(this.#doc.data.sites.map((s) => [s.keyHash, s._id]));
  }

  list(): SiteSummary[] {
    return this.#doc.data.sites.map(summary);
  }

  get(siteId: string): SiteSummary | null {
    const s = this.#doc.data.sites.find((x) => x._id === siteId);
    return s ? summary(s) : null;
  }

  /** By id, or by exact name (driver config may name the site; the first-run site is "Home"). */
  find(idOrName: string): SiteSummary | null {
    return this.get(idOrName) ?? this.list().find((s) => s.name === idOrName) ?? null;
  }

  /**
   * The site a key opens. Only the key's sha256 is looked up, never the key itself, so the lookup's timing
   * says nothing about stored keys; an unknown and a wrong key are the same work (one hash, one miss).
   */
  resolveKey(key: string): string | null {
    return this.#byHash.get(hashKey(key)) ?? null;
  }

  /**
   * On first start with no site, a site named Home is created (README "Sites and keys"). Only on the first start of a data
   * dir: an operator who deleted every site does not get Home (and a new key on the console) back.
   */
  async createFirstSite(name: string): Promise<(SiteSummary & { sitekey: string }) | null> {
    if (this.#doc.data.firstSiteDone) return null;
    const site = this.#doc.data.sites.length === 0 ? await this.create(name) : null;
    await this.#doc.commit((d) => {
      d.firstSiteDone = true;
    });
    return site;
  }

  /** Creates a site; the returned key is shown once and never stored in clear. */
  async create(name: string): Promise<SiteSummary & { sitekey: string }> {
    const sitekey = newSiteKey();
    const site: SiteRecord = {
      _id: newId(),
      name,
      keyHash: hashKey(sitekey),
      created: new Date().toISOString(),
    };
    await this.#doc.commit((d) => {
      d.sites.push(site);
    });
    this.#reindex();
    this.#bus.emit('lighting.site.created', { siteId: site._id, name });
    return { ...summary(site), sitekey };
  }

  async rename(siteId: string, name: string): Promise<SiteSummary> {
    this.#require(siteId);
    await this.#doc.commit((d) => {
      const s = d.sites.find((x) => x._id === siteId);
      if (s) s.name = name;
    });
    return this.get(siteId)!;
  }

  /** A new key; the old one stops working at once. */
  async rotateKey(siteId: string): Promise<SiteSummary & { sitekey: string }> {
    this.#require(siteId);
    const sitekey = newSiteKey();
    await this.#doc.commit((d) => {
      const s = d.sites.find((x) => x._id === siteId);
      if (s) s.keyHash = hashKey(sitekey);
    });
    this.#reindex();
    return { ...this.get(siteId)!, sitekey };
  }

  /** Deletes the site and everything in it. */
  async delete(siteId: string): Promise<void> {
    const site = this.#require(siteId);
    await this.#doc.commit((d) => {
      d.sites = d.sites.filter((s) => s._id !== siteId);
      d.lights = d.lights.filter((x) => x.siteid !== siteId);
      d.scenes = d.scenes.filter((x) => x.siteid !== siteId);
      d.groups = d.groups.filter((x) => x.siteid !== siteId);
      d.sensors = d.sensors.filter((x) => x.siteid !== siteId);
    });
    this.#reindex();
    this.#bus.emit('lighting.site.deleted', { siteId, name: site.name });
  }

  #require(siteId: string): SiteRecord {
    const s = this.#doc.data.sites.find((x) => x._id === siteId);
    if (!s) throw new HttpError(404, 'not_found', `no site with id ${siteId}`);
    return s;
  }
}
