/**
 * The bridges of the sites Matter is enabled for: which sites, their ports, their passcodes (secrets) and
 * node documents, and Hearth's events routed to the right bridge. Loaded only when the plugin starts,
 * since it pulls in matter.js.
 */
import { randomInt } from 'node:crypto';
import type { DocStore, PluginContext } from '../../core/sdk.ts';
import type { LightingExports, SiteSummary } from '../lighting/types.ts';
import { type BridgeView, MatterBridge } from './bridge.ts';
import type { MatterConfig } from './config.ts';
import { setUpMatter } from './matter-env.ts';
import type { NodeDoc } from './storage.ts';

interface Credentials {
  passcode: number;
  discriminator: number;
}

/** Matter 1.3 §5.1.7.1: passcodes that must never be used (trivial or sequential). */
const FORBIDDEN = new Set([
  0, 11111111, 22222222, 33333333, 44444444, 55555555, 66666666, 77777777, 88888888, 99999999, 12345678,
  87654321,
]);

/** A random passcode (1..99999998, not one of the forbidden ones) and 12-bit discriminator. */
export function newCredentials(): Credentials {
  let passcode = 0;
  while (FORBIDDEN.has(passcode)) passcode = randomInt(1, 99999999);
  return { passcode, discriminator: randomInt(0, 4096) };
}

export class Bridges {
  readonly #ctx: PluginContext<MatterConfig>;
  readonly #lighting: LightingExports;
  readonly #running = new Map<string, MatterBridge>();
  readonly #docs = new Map<string, DocStore<NodeDoc>>();
  #queue: Promise<void> = Promise.resolve();

  constructor(ctx: PluginContext<MatterConfig>, lighting: LightingExports) {
    this.#ctx = ctx;
    this.#lighting = lighting;
    setUpMatter(ctx.log, { mdnsInterface: ctx.config.mdnsInterface });
  }

  /** The sites that should have a bridge, in config order (the port order). */
  #wantedSites(): SiteSummary[] {
    const all = this.#lighting.sites.list();
    if (this.#ctx.config.sites.length === 0) {
      const first = [...all].sort((a, b) => a.created.localeCompare(b.created))[0];
      return first ? [first] : [];
    }
    const out: SiteSummary[] = [];
    for (const want of this.#ctx.config.sites) {
      const s = all.find((x) => x.siteid === want) ?? all.find((x) => x.name === want);
      this.#ctx.notices.set(`site-${want}`, s ? null : `Matter: no site with id or name "${want}"`);
      if (s && !out.includes(s)) out.push(s);
    }
    return out;
  }

  /** Starts and stops bridges until they match the wanted sites (serialised: sites change while it runs). */
  reconcile(): Promise<void> {
    this.#queue = this.#queue.then(() => this.#reconcile());
    return this.#queue;
  }

  async #reconcile(): Promise<void> {
    const wanted = this.#wantedSites();
    for (const [siteId, b] of this.#running) {
      if (!wanted.some((s) => s.siteid === siteId)) {
        this.#running.delete(siteId);
        await b.stop();
      }
    }
    for (const [i, site] of wanted.entries()) {
      if (this.#running.has(site.siteid)) continue;
      const base = this.#ctx.config.port;
      try {
        const b = new MatterBridge({
          siteId: site.siteid,
          siteName: site.name,
          port: base === 0 ? 0 : base + i,
          listen: this.#ctx.config.listen,
          windowSeconds: this.#ctx.config.windowSeconds,
          ...(await this.#credentials(site.siteid)),
          plugs: new Set(this.#ctx.config.plugs),
          lighting: this.#lighting,
          doc: await this.#doc(site.siteid),
          log: this.#ctx.log,
        });
        await b.start();
        for (const code of b.codes()) this.#ctx.redact.value(code);
        this.#running.set(site.siteid, b);
        this.#ctx.notices.set(`bridge-${site.siteid}`, null);
        this.#ctx.log.info({ site: site.siteid, port: b.port }, 'Matter bridge started');
      } catch (err) {
        this.#ctx.log.error({ err, site: site.siteid }, 'Matter bridge failed to start');
        this.#ctx.notices.set(
          `bridge-${site.siteid}`,
          `Matter bridge of site ${site.name} could not be started`,
        );
      }
    }
  }

  async #credentials(siteId: string): Promise<Credentials> {
    const name = `bridge-${siteId}`;
    const stored = this.#ctx.secrets.get(name);
    if (stored) return JSON.parse(stored) as Credentials;
    const fresh = newCredentials();
    await this.#ctx.secrets.set(name, JSON.stringify(fresh));
    return fresh;
  }

  async #doc(siteId: string): Promise<DocStore<NodeDoc>> {
    let doc = this.#docs.get(siteId);
    if (!doc) {
      doc = await this.#ctx.store.open<NodeDoc>(`node-${siteId}`, { contexts: {} });
      this.#docs.set(siteId, doc);
    }
    return doc;
  }

  /** A deleted site's bridge is gone for good: its node state and passcode are forgotten. */
  async forget(siteId: string): Promise<void> {
    await this.reconcile();
    const doc = await this.#doc(siteId);
    await doc.commit((d) => {
      d.contexts = {};
    });
    await this.#ctx.secrets.delete(`bridge-${siteId}`);
  }

  get(siteId: string): MatterBridge | undefined {
    return this.#running.get(siteId);
  }

  views(): BridgeView[] {
    return [...this.#running.values()].map((b) => b.view());
  }

  async stop(): Promise<void> {
    await this.#queue.catch(() => {});
    // In parallel: each node says goodbye on its own sockets, and the hub's stop has a time budget.
    await Promise.all([...this.#running.values()].map((b) => b.stop()));
    this.#running.clear();
    for (const doc of this.#docs.values()) await doc.flush();
  }
}
