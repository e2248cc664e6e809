/**
 * Who may use a site surface. The site key in the path grants everything (spec §Authentication). When the
 * auth plugin installed a token verifier, `Authorization: Bearer <token>` with the *site id* in the path
 * works too, limited by the token's scopes. Unknown keys, wrong keys and refused tokens all look the same.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, type RouteMiddleware } from '../../core/sdk.ts';
import type { Sites } from './sites.ts';
import type { SiteTokenVerifier, TokenPresentation } from './types.ts';

export type Scope =
  | 'lights:read'
  | 'lights:write'
  | 'scenes:apply'
  | 'sensors:write'
  | 'schedules:write'
  | 'site:admin';

export interface SiteAccess {
  siteId: string;
  /** `null` = the site key, which grants every scope. */
  scopes: ReadonlySet<string> | null;
  /** Tokens only: whether the token is still good (a WebSocket outlives the request that opened it). */
  stillValid?: () => boolean;
}

export const unknownSite = () => new HttpError(404, 'unknown_site', 'unknown site');

/** A token as a request presented it. */
export interface PresentedToken {
  token: string;
  how: TokenPresentation;
}

/** `Authorization: Bearer <token>` or `DPoP <token>` (RFC 9449 §7.1), with the scheme. */
export function credentialOf(
  header: string | undefined,
): { token: string; scheme: 'bearer' | 'dpop' } | null {
  const m = header ? /^(Bearer|DPoP)\s+([^\s]+)\s*$/i.exec(header) : null;
  return m ? { token: m[2]!, scheme: m[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer' } : null;
}

/** The token of an HTTP request with what a DPoP-bound token needs checked. */
export function presentedToken(req: {
  authorization: string | undefined;
  dpop: string | string[] | undefined;
  method: string;
  urls: readonly string[];
}): PresentedToken | null {
  const cred = credentialOf(req.authorization);
  if (!cred) return null;
  // Repeated DPoP headers arrive joined or as a list: either way not one proof, so the token is refused.
  const proof = Array.isArray(req.dpop) ? req.dpop.join(',') : req.dpop || undefined;
  return {
    token: cred.token,
    how: { scheme: cred.scheme, method: req.method, urls: req.urls, ...(proof ? { proof } : {}) },
  };
}

/**
 * Browsers cannot set headers on a WebSocket, so they offer the token as a subprotocol instead:
 * `new WebSocket(url, ["bearer", token])`. Only `bearer` is echoed back; the token never is.
 */
export const BEARER_PROTOCOL = 'bearer';

/** The entry after `bearer` in a `Sec-WebSocket-Protocol` header, or null. */
export function bearerOfProtocols(header: string | undefined): string | null {
  if (!header) return null;
  const offered = header.split(',').map((p) => p.trim());
  const at = offered.indexOf(BEARER_PROTOCOL);
  return (at >= 0 && offered[at + 1]) || null;
}

export class AccessControl {
  readonly #sites: Sites;
  #verifier: SiteTokenVerifier | null = null;

  readonly #origins: () => string[];

  /** `origins`: the main listener's own origins (its public URL), which a DPoP proof's `htu` must name. */
  constructor(sites: Sites, origins: () => string[] = () => []) {
    this.#sites = sites;
    this.#origins = origins;
  }

  /**
   * The URLs a DPoP proof for `path` may name (RFC 9449 §4.3 item 9): this hub's own origins, never one
   * built from the request's Host header (§11.1: a proof made for another server must not replay here).
   * A WebSocket upgrade may be named by its http(s) or its ws(s) URL (RFC 9449 names no form for it).
   */
  proofUrls(path: string, upgrade = false): string[] {
    const http = this.#origins().map((o) => `${o}${path}`);
    return upgrade ? [...http, ...http.map((u) => u.replace(/^http/, 'ws'))] : http;
  }

  setVerifier(fn: SiteTokenVerifier | null): void {
    this.#verifier = fn;
  }

  /** `presented`: the token from wherever the surface carries it (a header, a WebSocket subprotocol). */
  async resolve(keyOrId: string, presented: PresentedToken | null): Promise<SiteAccess | null> {
    const siteId = this.#sites.resolveKey(keyOrId);
    if (siteId) return { siteId, scopes: null };
    return this.#byToken(keyOrId, presented);
  }

  /** A token for the site whose id is in the path. */
  async #byToken(keyOrId: string, presented: PresentedToken | null): Promise<SiteAccess | null> {
    if (!presented || !this.#verifier || !this.#sites.get(keyOrId)) return null;
    const granted = await this.#verifier(presented.token, keyOrId, presented.how).catch(() => null);
    if (!granted) return null;
    const access: SiteAccess = { siteId: keyOrId, scopes: new Set(granted.scopes) };
    if (granted.stillValid) access.stillValid = granted.stillValid;
    return access;
  }

  static allows(access: SiteAccess, scope: Scope): boolean {
    return access.scopes === null || access.scopes.has(scope);
  }

  /**
   * The site key's access (every scope), without a promise: the common case of a site call. Null when `key`
   * is no site's key (then `check` looks for a token; wrong and unknown keys cost the same one hash here).
   */
  bySiteKey(key: string): SiteAccess | null {
    const siteId = this.#sites.resolveKey(key);
    return siteId ? { siteId, scopes: null } : null;
  }

  /**
   * The access a request to `path` has to the site its `key` segment names, with `scope`: the site key, or
   * a token for the site id. 404 for an unknown or wrong key or a refused token (all alike), 403 for a
   * token without the scope. Used by the Koa guard and the direct routes.
   */
  async check(
    key: string,
    scope: Scope,
    req: { headers: IncomingHttpHeaders; method?: string | undefined },
    path: string,
  ): Promise<SiteAccess> {
    const access: SiteAccess | null =
      this.bySiteKey(key) ??
      (await this.#byToken(
        key,
        presentedToken({
          authorization: req.headers.authorization || undefined,
          dpop: req.headers.dpop,
          method: req.method ?? '',
          urls: this.proofUrls(path),
        }),
      ));
    if (!access) throw unknownSite();
    if (!AccessControl.allows(access, scope)) {
      throw new HttpError(403, 'insufficient_scope', `this token lacks the ${scope} scope`);
    }
    return access;
  }

  /** Koa middleware: resolves `:key` into `ctx.state.site` and checks the route's scope. */
  guard(scope: Scope): RouteMiddleware {
    return async (ctx, next) => {
      ctx.state.site = await this.check(ctx.params.key ?? '', scope, ctx.req, ctx.path);
      await next();
    };
  }
}
