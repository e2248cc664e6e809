/**
 * Mixed durable writes with a model of what was acknowledged: sites, lights, scenes (site API and admin),
 * OAuth clients, translation developer keys. A value whose write was in flight may or may not be there;
 * every acknowledged one must be.
 */
import type { HubProcess } from './hub.ts';

type Kind = 'site' | 'light' | 'scene' | 'client' | 'devkey';

interface Entity {
  kind: Kind;
  id: string;
  /** The worker that created it: only that worker changes it, so its writes are ordered. */
  owner: number;
  /** The site the light or scene lives on (its key). */
  sitekey?: string;
  /** Values that may be stored: the last acknowledged one and any in flight after it. */
  allowed: Set<string>;
  /** False until a create was acknowledged. */
  acked: boolean;
}

export interface WriteStats {
  acked: number;
  refused: number;
  errors: number;
}

export class WriteModel {
  readonly entities = new Map<string, Entity>();
  readonly stats: WriteStats = { acked: 0, refused: 0, errors: 0 };
  /** Non-2xx answers seen, by route and status. */
  readonly refusals = new Map<string, number>();
  private seq = 0;
  private sites: Array<{ siteid: string; sitekey: string; owner: number }> = [];

  constructor(private hub: HubProcess) {}

  use(hub: HubProcess): void {
    this.hub = hub;
  }

  /** A site whose writes were acknowledged, with its key (for parts that need one more light). */
  anySite(): { siteid: string; sitekey: string } | undefined {
    return this.sites[0];
  }

  private next(prefix: string): string {
    this.seq += 1;
    return `${prefix}-${this.seq}`;
  }

  /** Names of creates that were answered with an error: none of them may ever be visible. */
  readonly refusedCreates = new Set<string>();
  /** Errors answered without a JSON body. */
  readonly notJson: string[] = [];

  private refused(route: string, status: number, res?: { body: unknown; text: string }, name?: string): void {
    if (name) this.refusedCreates.add(name);
    if (res && res.body === undefined && this.notJson.length < 5)
      this.notJson.push(`${route} → ${status} ${res.text.slice(0, 80)}`);
    this.stats.refused += 1;
    const k = `${route} → ${status}`;
    this.refusals.set(k, (this.refusals.get(k) ?? 0) + 1);
  }

  private ownedBy(kind: Kind, owner: number, sitekey?: string): Entity[] {
    return [...this.entities.values()].filter(
      (e) => e.kind === kind && e.acked && e.owner === owner && (!sitekey || e.sitekey === sitekey),
    );
  }

  private pick<T>(xs: T[]): T | undefined {
    return xs[Math.floor(Math.random() * xs.length)];
  }

  /** One random write, awaited. A worker runs these one after another, on entities only it touches. */
  async one(worker: number): Promise<void> {
    const h = this.hub;
    const site = this.pick(this.sites.filter((s) => s.owner === worker));
    const r = Math.random();
    try {
      if (!site || r < 0.08) {
        const name = this.next('site');
        const res = await h.admin('POST', '/admin/sites', { name });
        if (res.status !== 201) return this.refused('POST /admin/sites', res.status, res, name);
        this.entities.set(`site:${res.body.siteid}`, {
          kind: 'site',
          owner: worker,
          id: res.body.siteid,
          allowed: new Set([name]),
          acked: true,
        });
        this.sites.push({ siteid: res.body.siteid, sitekey: res.body.sitekey, owner: worker });
        this.stats.acked += 1;
        return;
      }
      const api = `/api/site/${site.sitekey}`;
      if (r < 0.3) {
        const name = this.next('light');
        const res = await h.call('main', 'POST', `${api}/light`, {
          name,
          type: 'binary',
          vendor: 'virtual',
          virtualid: name,
        });
        if (res.status !== 201) return this.refused('POST /light', res.status, res, name);
        this.entities.set(`light:${res.body._id}`, {
          kind: 'light',
          owner: worker,
          id: res.body._id,
          sitekey: site.sitekey,
          allowed: new Set([name]),
          acked: true,
        });
        this.stats.acked += 1;
      } else if (r < 0.45) {
        const e = this.pick(this.ownedBy('light', worker, site.sitekey));
        if (!e) return;
        await this.update(e, 'PUT /light', (name) =>
          h.call('main', 'PUT', `${api}/light`, { _id: e.id, name }),
        );
      } else if (r < 0.55) {
        const name = this.next('scene');
        const res = await h.call('main', 'POST', `${api}/scene`, { name, state: [] });
        if (res.status !== 201 && res.status !== 200)
          return this.refused('POST /scene', res.status, res, name);
        this.entities.set(`scene:${res.body._id}`, {
          kind: 'scene',
          owner: worker,
          id: res.body._id,
          sitekey: site.sitekey,
          allowed: new Set([name]),
          acked: true,
        });
        this.stats.acked += 1;
      } else if (r < 0.63) {
        const e = this.pick(this.ownedBy('scene', worker, site.sitekey));
        if (!e) return;
        await this.update(e, 'PUT /scene', (name) =>
          h.call('main', 'PUT', `${api}/scene`, { _id: e.id, name }),
        );
      } else if (r < 0.7) {
        const e = this.entities.get(`site:${site.siteid}`);
        if (!e) return;
        await this.update(e, 'PATCH /admin/sites/:id', (name) =>
          h.admin('PATCH', `/admin/sites/${site.siteid}`, { name }),
        );
      } else if (r < 0.82) {
        const name = this.next('client');
        const res = await h.admin('POST', '/admin/clients', clientBody(name));
        if (res.status !== 201) return this.refused('POST /admin/clients', res.status, res, name);
        this.entities.set(`client:${res.body.client_id}`, {
          kind: 'client',
          owner: worker,
          id: res.body.client_id,
          allowed: new Set([name]),
          acked: true,
        });
        this.stats.acked += 1;
      } else if (r < 0.92) {
        const label = this.next('devkey');
        const res = await h.call(
          'main',
          'POST',
          '/v2/admin/developer-keys',
          { label },
          { authorization: `DeepL-Auth-Key ${h.adminKey}` },
        );
        if (res.status !== 200 && res.status !== 201)
          return this.refused('POST /v2/admin/developer-keys', res.status, res, label);
        this.entities.set(`devkey:${res.body.key_id}`, {
          kind: 'devkey',
          owner: worker,
          id: res.body.key_id,
          allowed: new Set([label]),
          acked: true,
        });
        this.stats.acked += 1;
      } else {
        const e = this.pick(this.ownedBy('devkey', worker));
        if (!e) return;
        await this.update(e, 'PUT /v2/admin/developer-keys/label', (label) =>
          h.call(
            'main',
            'PUT',
            '/v2/admin/developer-keys/label',
            { key_id: e.id, label },
            { authorization: `DeepL-Auth-Key ${h.adminKey}` },
          ),
        );
      }
    } catch {
      // The hub was killed mid-request (or refused the connection): nothing acknowledged.
      this.stats.errors += 1;
    }
  }

  private async update(
    e: Entity,
    route: string,
    send: (value: string) => Promise<{ status: number; body: unknown; text: string }>,
  ): Promise<void> {
    const value = this.next(e.kind);
    e.allowed.add(value);
    const res = await send(value);
    if (res.status >= 200 && res.status < 300) {
      e.allowed = new Set([value]);
      this.stats.acked += 1;
    } else {
      e.allowed.delete(value);
      this.refused(route, res.status, res);
    }
  }

  /** Every acknowledged entity, read back through the API: what is missing or holds a value never sent. */
  async verify(): Promise<{ checked: number; problems: string[] }> {
    const h = this.hub;
    const problems: string[] = [];
    const seen = new Map<string, string>();
    const sites = await h.admin('GET', '/admin/sites');
    for (const s of sites.body ?? []) seen.set(`site:${s.siteid}`, s.name);
    for (const { sitekey } of this.sites) {
      const lights = await h.call('main', 'GET', `/api/site/${sitekey}/light`);
      for (const l of Array.isArray(lights.body) ? lights.body : []) seen.set(`light:${l._id}`, l.name);
      const scenes = await h.call('main', 'GET', `/api/site/${sitekey}/scene`);
      for (const s of Array.isArray(scenes.body) ? scenes.body : []) seen.set(`scene:${s._id}`, s.name);
    }
    const clients = await h.admin('GET', '/admin/clients?limit=1000');
    for (const c of Array.isArray(clients.body) ? clients.body : [])
      seen.set(`client:${c.id ?? c.client_id}`, c.name ?? c.client_name);
    const keys = await h.call('main', 'GET', '/v2/admin/developer-keys', undefined, {
      authorization: `DeepL-Auth-Key ${h.adminKey}`,
    });
    for (const k of Array.isArray(keys.body) ? keys.body : []) seen.set(`devkey:${k.key_id}`, k.label);
    for (const [key, value] of seen) {
      if (this.refusedCreates.has(value))
        problems.push(`${key} "${value}" is there although its create was refused`);
    }
    let checked = 0;
    for (const [key, e] of this.entities) {
      if (!e.acked) continue;
      checked += 1;
      const got = seen.get(key);
      if (got === undefined) problems.push(`${key} acknowledged but missing`);
      else if (!e.allowed.has(got))
        problems.push(`${key} holds "${got}", acknowledged ${[...e.allowed].join(' or ')}`);
      else e.allowed = new Set([got]);
    }
    return { checked, problems };
  }
}

export function clientBody(name: string): Record<string, unknown> {
  return {
    client_name: name,
    redirect_uris: [],
    grant_types: ['client_credentials'],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'lights:read',
    agent: false,
    agent_description: '',
  };
}
