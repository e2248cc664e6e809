/**
 * A simulated Hue bridge for tests, benchmarks and `npm run demo`: HTTPS on loopback with a certificate
 * made at start, the CLIP v2 resources the driver uses, the link button, the event stream with the
 * bridge's one-second coalescing, the bridge's own limits (3 requests at a time, ~10 light commands or 1
 * group command per second, refused with 429) and fault modes (docs/hue.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ColourCommandKind } from '../common.ts';
import { type BridgeCerts, makeBridgeCerts } from './certs.ts';
import { buildResources, ids, type Resource } from './resources.ts';

export { ids } from './resources.ts';

export interface SimulatedBridgeOptions {
  /** 16 hex digits, lower case (default a fixed test id). */
  bridgeId?: string;
  /** Certificates to serve; default a fresh chain for `bridgeId`. */
  certs?: BridgeCerts;
  lights?: number;
  /** The event stream's coalescing window (the bridge: 1000 ms). */
  coalesceMs?: number;
  /** Time the bridge takes to answer a request. */
  latencyMs?: number;
  /** Slack of the command-rate limit, for timer jitter on a loaded machine. */
  rateToleranceMs?: number;
  port?: number;
}

/** What the bridge saw, for tests and the benchmark. */
export interface BridgeStats {
  lightPuts: number;
  groupPuts: number;
  scenePuts: number;
  /** Requests refused with 429 because of the bridge's own limits (not injected faults). */
  tooMany: number;
  maxInFlight: number;
  /** Arrival time (ms, performance.now) of each light PUT, by light id. */
  arrivals: Array<{ id: string; at: number }>;
}

const LIGHT_COST_MS = 100; // ~10 light commands per second
const GROUP_COST_MS = 1000; // or 1 group command per second
const MAX_IN_FLIGHT = 3;

export class SimulatedBridge {
  readonly bridgeId: string;
  readonly certs: BridgeCerts;
  readonly stats: BridgeStats = {
    lightPuts: 0,
    groupPuts: 0,
    scenePuts: 0,
    tooMany: 0,
    maxInFlight: 0,
    arrivals: [],
  };
  /** The fault modes a test switches on. */
  readonly faults = { silentStream: false, injected: [] as number[] };
  readonly #keys = new Set<string>();
  readonly #resources = new Map<string, Resource>();
  readonly #streams = new Set<ServerResponse>();
  readonly #opts: Required<Omit<SimulatedBridgeOptions, 'certs' | 'bridgeId'>>;
  #server: https.Server | null = null;
  #port = 0;
  #linkUntil = 0;
  #inFlight = 0;
  #tat = 0;
  #pending = new Map<string, Record<string, unknown>>();
  #flushTimer: NodeJS.Timeout | null = null;
  #lastFlush = 0;
  #eventSeq = 0;
  readonly #colourLog = new Map<string, ColourCommandKind[]>();

  private constructor(opts: SimulatedBridgeOptions) {
    this.bridgeId = opts.bridgeId ?? '001788fffe4a5b6c';
    this.certs = opts.certs ?? makeBridgeCerts(this.bridgeId);
    this.#opts = {
      lights: opts.lights ?? 4,
      coalesceMs: opts.coalesceMs ?? 1000,
      latencyMs: opts.latencyMs ?? 2,
      rateToleranceMs: opts.rateToleranceMs ?? 100,
      port: opts.port ?? 0,
    };
    for (const r of buildResources(this.#opts.lights)) this.#resources.set(r.id, r);
  }

  static async start(opts: SimulatedBridgeOptions = {}): Promise<SimulatedBridge> {
    const bridge = new SimulatedBridge(opts);
    await bridge.#listen(bridge.#opts.port);
    return bridge;
  }

  get port(): number {
    return this.#port;
  }
  get host(): string {
    return '127.0.0.1';
  }

  /** An application key the bridge accepts, as if paired earlier. */
  addKey(key = randomBytes(20).toString('hex')): string {
    this.#keys.add(key);
    return key;
  }
  /** Every application key the bridge accepts (given at pairing or added), newest last. */
  keys(): string[] {
    return [...this.#keys];
  }
  /** The link button: pairing is open for 30 s. */
  pressLinkButton(): void {
    this.#linkUntil = Date.now() + 30_000;
  }
  /** The link button's 30 s are over: the next pairing waits for a press again. */
  closeLinkButton(): void {
    this.#linkUntil = 0;
  }

  resource(id: string): Resource | undefined {
    return this.#resources.get(id);
  }
  light(n: number): Resource {
    return this.#resources.get(ids.light(n)) as Resource;
  }
  /**
   * A light added on the bridge (the Hue app) whose `add` event the stream does not carry (a stream that
   * was reconnecting): a copy of light 1 under a new id, at `patch`. Returns its id.
   */
  addLightQuietly(patch: Record<string, unknown> = {}): string {
    const light = structuredClone(this.light(1));
    light.id = randomUUID();
    merge(light, patch);
    this.#resources.set(light.id, light);
    return light.id;
  }
  /** The colour commands a light received (`color_temperature` → `ct`, `color` → `xy`), oldest first. */
  colourCommands(id: string): ColourCommandKind[] {
    return [...(this.#colourLog.get(id) ?? [])];
  }

  /** A change made outside Hearth (the Hue app, a Hue switch): applied and sent on the event stream. */
  change(id: string, patch: Record<string, unknown>): void {
    const r = this.#resources.get(id);
    if (!r) throw new Error(`no resource ${id}`);
    merge(r, patch);
    this.#queueEvent(r, patch);
  }
  /** A Hue button press: `initial_press`, `short_release`, `long_press`, `repeat`, `long_release`. */
  pressButton(controlId: number, event: string): void {
    this.change(ids.dimmerButton(controlId), {
      button: { button_report: { event, updated: new Date().toISOString() }, last_event: event },
    });
  }
  rotate(direction: 'clock_wise' | 'counter_clock_wise', steps = 30): void {
    this.change(ids.dialRotary, {
      relative_rotary: {
        rotary_report: {
          action: 'start',
          rotation: { direction, steps, duration: 400 },
          updated: new Date().toISOString(),
        },
      },
    });
  }
  setMotion(motion: boolean): void {
    this.change(ids.motion, { motion: { motion, motion_valid: true } });
  }
  setContact(state: 'contact' | 'no_contact'): void {
    this.change(ids.contact, { contact_report: { state, changed: new Date().toISOString() } });
  }

  /** The next `n` requests are refused with `status` (429 or 503), as a busy bridge does. */
  injectErrors(n: number, status: 429 | 503): void {
    for (let i = 0; i < n; i++) this.faults.injected.push(status);
  }
  /** Ends every open event stream (the bridge closing it). */
  closeStreams(): void {
    for (const s of this.#streams) s.end();
    this.#streams.clear();
  }
  openStreams(): number {
    return this.#streams.size;
  }

  /** Power-cycles the bridge: every connection dropped, down for `downMs`, back on the same port. */
  async restart(downMs = 50): Promise<void> {
    await this.stop();
    await new Promise((r) => setTimeout(r, downMs));
    await this.#listen(this.#port);
  }
  /** The bridge got another address (DHCP): every connection dropped, back at once on a new port. */
  async move(): Promise<void> {
    await this.stop();
    await this.#listen(0);
  }
  /** Takes the bridge off the network (restore with `resume`). */
  async stop(): Promise<void> {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    this.#pending.clear();
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    for (const s of this.#streams) s.destroy();
    this.#streams.clear();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  async resume(): Promise<void> {
    if (!this.#server) await this.#listen(this.#port);
  }

  async #listen(port: number): Promise<void> {
    const server = https.createServer(
      { key: this.certs.keyPem, cert: this.certs.certPem },
      (req, res) => void this.#handle(req, res),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://bridge');
    if (url.pathname === '/eventstream/clip/v2') return this.#stream(req, res);
    this.#inFlight++;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.#inFlight);
    try {
      const body = await readBody(req);
      await new Promise((r) => setTimeout(r, this.#opts.latencyMs));
      if (this.#inFlight > MAX_IN_FLIGHT) {
        this.stats.tooMany++;
        return send(res, 429, { errors: [{ description: 'too many requests' }], data: [] });
      }
      const injected = this.faults.injected.shift();
      if (injected) return send(res, injected, { errors: [{ description: 'busy' }], data: [] });
      await this.#route(req.method ?? 'GET', url.pathname, body, req, res);
    } finally {
      this.#inFlight--;
    }
  }

  async #route(method: string, p: string, body: string, req: IncomingMessage, res: ServerResponse) {
    if (p === '/api/config' && method === 'GET') {
      return send(res, 200, {
        name: 'Simulated bridge',
        bridgeid: this.bridgeId.toUpperCase(),
        modelid: 'BSB002',
      });
    }
    if (p === '/api' && method === 'POST') return this.#pair(body, res);
    if (!p.startsWith('/clip/v2/resource')) return send(res, 404, { errors: [{ description: 'not found' }] });
    const key = req.headers['hue-application-key'];
    if (typeof key !== 'string' || !this.#keys.has(key)) {
      return send(res, 403, { errors: [{ description: 'unauthorized user' }], data: [] });
    }
    const [, , , , type, id] = p.split('/');
    if (method === 'GET') {
      const all = [...this.#resources.values()];
      const data = !type ? all : id ? all.filter((r) => r.id === id) : all.filter((r) => r.type === type);
      if (id && data.length === 0)
        return send(res, 404, { errors: [{ description: 'not found' }], data: [] });
      return send(res, 200, { errors: [], data });
    }
    if (method !== 'PUT' || !type || !id)
      return send(res, 405, { errors: [{ description: 'method not allowed' }] });
    const r = this.#resources.get(id);
    if (!r || r.type !== type) return send(res, 404, { errors: [{ description: 'not found' }], data: [] });
    if (!this.#admit(type === 'grouped_light' ? GROUP_COST_MS : LIGHT_COST_MS)) {
      this.stats.tooMany++;
      return send(res, 429, { errors: [{ description: 'rate limit' }], data: [] });
    }
    let patch: Record<string, unknown>;
    try {
      patch = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return send(res, 400, { errors: [{ description: 'body is not JSON' }], data: [] });
    }
    if (type === 'light') this.#putLight(r, patch);
    else if (type === 'grouped_light') this.#putGroup(r, patch);
    else if (type === 'scene') this.#recall(r);
    else return send(res, 405, { errors: [{ description: 'not writable here' }] });
    return send(res, 200, { errors: [], data: [{ rid: id, rtype: type }] });
  }

  /** The bridge's command budget as a GCRA: a light costs 100 ms of it, a group command a whole second. */
  #admit(costMs: number): boolean {
    const now = performance.now();
    if (now < this.#tat - this.#opts.rateToleranceMs) return false;
    this.#tat = Math.max(this.#tat, now) + costMs;
    return true;
  }

  #putLight(r: Resource, patch: Record<string, unknown>): void {
    this.stats.lightPuts++;
    this.stats.arrivals.push({ id: r.id, at: performance.now() });
    this.#logColour(r.id, patch);
    const change = lightPatch(r, patch);
    merge(r, change);
    this.#queueEvent(r, change);
  }

  #logColour(id: string, patch: Record<string, unknown>): void {
    const kinds = this.#colourLog.get(id) ?? [];
    this.#colourLog.set(id, kinds);
    if (patch.color_temperature !== undefined) kinds.push('ct');
    if (patch.color !== undefined) kinds.push('xy');
  }

  #putGroup(r: Resource, patch: Record<string, unknown>): void {
    this.stats.groupPuts++;
    const owner = this.#resources.get((r.owner as { rid: string }).rid);
    for (const light of this.#lightsOf(owner)) {
      this.#logColour(light.id, patch);
      const change = lightPatch(light, patch);
      merge(light, change);
      this.#queueEvent(light, change);
    }
    merge(r, { on: patch.on ?? r.on });
    this.#queueEvent(r, { on: r.on });
  }

  #recall(scene: Resource): void {
    this.stats.scenePuts++;
    for (const a of scene.actions as Array<{ target: { rid: string }; action: Record<string, unknown> }>) {
      const light = this.#resources.get(a.target.rid);
      if (!light) continue;
      const change = lightPatch(light, a.action);
      merge(light, change);
      this.#queueEvent(light, change);
    }
  }

  #lightsOf(group: Resource | undefined): Resource[] {
    const out: Resource[] = [];
    for (const c of (group?.children as Array<{ rid: string; rtype: string }>) ?? []) {
      const child = this.#resources.get(c.rid);
      if (child?.type === 'light') out.push(child);
      for (const s of (child?.services as Array<{ rid: string; rtype: string }>) ?? []) {
        const l = this.#resources.get(s.rid);
        if (l?.type === 'light') out.push(l);
      }
    }
    return out;
  }

  #pair(body: string, res: ServerResponse): void {
    let devicetype: unknown;
    try {
      devicetype = (JSON.parse(body) as { devicetype?: unknown }).devicetype;
    } catch {
      devicetype = undefined;
    }
    if (typeof devicetype !== 'string') {
      send(res, 200, [
        { error: { type: 5, address: '/', description: 'invalid/missing parameters in body' } },
      ]);
      return;
    }
    if (Date.now() > this.#linkUntil) {
      send(res, 200, [{ error: { type: 101, address: '', description: 'link button not pressed' } }]);
      return;
    }
    const username = this.addKey();
    send(res, 200, [{ success: { username, clientkey: randomBytes(16).toString('hex').toUpperCase() } }]);
  }

  #stream(req: IncomingMessage, res: ServerResponse): void {
    const key = req.headers['hue-application-key'];
    if (typeof key !== 'string' || !this.#keys.has(key)) {
      send(res, 403, { errors: [{ description: 'unauthorized user' }] });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': hi\n\n');
    this.#streams.add(res);
    res.on('close', () => this.#streams.delete(res));
  }

  /** At most one event container per window; a property changed twice in it keeps its last value. */
  #queueEvent(r: Resource, change: Record<string, unknown>): void {
    const prev = this.#pending.get(r.id) ?? {
      id: r.id,
      type: r.type,
      ...(r.id_v1 ? { id_v1: r.id_v1 } : {}),
    };
    if (r.owner) prev.owner = r.owner;
    merge(prev, structuredClone(change));
    this.#pending.set(r.id, prev);
    if (this.#flushTimer) return;
    const wait = Math.max(0, this.#lastFlush + this.#opts.coalesceMs - Date.now());
    this.#flushTimer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#flushTimer = null;
    this.#lastFlush = Date.now();
    const data = [...this.#pending.values()];
    this.#pending.clear();
    if (data.length === 0 || this.faults.silentStream) return;
    const container = { creationtime: new Date().toISOString(), data, id: randomUUID(), type: 'update' };
    const frame = `id: ${Math.floor(Date.now() / 1000)}:${this.#eventSeq++}\ndata: ${JSON.stringify([container])}\n\n`;
    for (const s of this.#streams) s.write(frame);
  }
}

/** What a light command changes on one light: brightness respects `min_dim_level`, mirek its schema. */
function lightPatch(light: Resource, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const p = patch as {
    on?: { on: boolean };
    dimming?: { brightness: number };
    color_temperature?: { mirek: number };
    color?: { xy: { x: number; y: number } };
  };
  if (p.on) out.on = { on: p.on.on === true };
  if (p.dimming && typeof p.dimming.brightness === 'number') {
    const min = (light.dimming as { min_dim_level?: number } | undefined)?.min_dim_level ?? 0;
    out.dimming = { brightness: Math.min(100, Math.max(min, p.dimming.brightness)) };
  }
  const schema = (
    light.color_temperature as { mirek_schema?: { mirek_minimum: number; mirek_maximum: number } }
  )?.mirek_schema;
  if (p.color_temperature && schema) {
    const mirek = Math.min(schema.mirek_maximum, Math.max(schema.mirek_minimum, p.color_temperature.mirek));
    out.color_temperature = { mirek, mirek_valid: true };
  }
  if (p.color?.xy && light.color) {
    out.color = { xy: p.color.xy };
    if (!p.color_temperature && light.color_temperature)
      out.color_temperature = { mirek: null, mirek_valid: false };
  }
  return out;
}

function merge(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    const t = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && t && typeof t === 'object' && !Array.isArray(t)) {
      merge(t as Record<string, unknown>, v as Record<string, unknown>);
    } else target[k] = v;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
