import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/**
 * A real OpenID provider on loopback (oidc-provider 9) for the upstream-login and broker tests. Its login
 * page is replaced by an interaction that signs in `nextAccount` at once, and consent is implied, so a test
 * drives the whole redirect dance with an HTTP client. `tamper` rewrites the token endpoint's answer, to
 * play a provider (or a network) that lies.
 */
export interface UpstreamAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface UpstreamProvider {
  issuer: string;
  /** The provider's signing key (to mint a correctly signed but wrong ID token). */
  signingKey: CryptoKey;
  kid: string;
  /** The account the next interaction signs in. */
  nextAccount: UpstreamAccount;
  /** Every upstream access, refresh and ID token the token endpoint handed out. */
  issuedTokens: string[];
  /** Counts of requests by path (discovery, jwks, token). */
  hits: Map<string, number>;
  tamper: ((body: Record<string, unknown>) => Promise<void>) | null;
  /** The next interaction refuses (the person says no at the provider): `error=access_denied`. */
  denyNext: boolean;
  /** Creates the provider once the hub's callback URLs are known. */
  configure(clients: Array<Record<string, unknown>>): Promise<void>;
  close(): Promise<void>;
}

// oidc-provider ships no types; these are the members the tests use.
interface ProviderInstance {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  use(fn: (ctx: KoaLike, next: () => Promise<void>) => Promise<void>): void;
  interactionResult(req: http.IncomingMessage, res: http.ServerResponse, result: object): Promise<string>;
  Grant: new (o: {
    accountId: string;
    clientId: string;
  }) => {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  };
}
interface KoaLike {
  path: string;
  method: string;
  body: unknown;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  status: number;
  redirect(url: string): void;
  oidc?: { client?: { clientId: string }; session?: { accountId?: string }; params?: { scope?: string } };
}
type ProviderCtor = new (issuer: string, config: object) => ProviderInstance;

export async function startUpstreamProvider(): Promise<UpstreamProvider> {
  const { default: Provider } = (await import('oidc-provider' as string)) as { default: ProviderCtor };
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'upstream-key-1';
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (!handler) {
      res.statusCode = 503;
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const self: UpstreamProvider = {
    issuer,
    signingKey: privateKey,
    kid,
    nextAccount: { sub: 'upstream-ann', email: 'ann@home.test', email_verified: true, name: 'Ann' },
    issuedTokens: [],
    hits,
    tamper: null,
    denyNext: false,
    async configure(clients) {
      const provider = new Provider(issuer, {
        clients,
        jwks: { keys: [jwk] },
        cookies: { keys: ['upstream-test-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        scopes: ['openid', 'email', 'profile', 'offline_access', 'photos.read', 'photos.write'],
        conformIdTokenClaims: false,
        ttl: {
          AccessToken: 600,
          RefreshToken: 86_400,
          IdToken: 600,
          Grant: 3600,
          Session: 3600,
          Interaction: 600,
        },
        features: { devInteractions: { enabled: false } },
        pkce: { required: () => true },
        issueRefreshToken: async () => true,
        interactions: {
          url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
        },
        findAccount: async (_ctx: unknown, id: string) => {
          const account = self.nextAccount.sub === id ? self.nextAccount : { sub: id };
          return { accountId: id, claims: async () => ({ ...account, sub: id }) };
        },
        // Consent is implied: every requested scope is granted.
        loadExistingGrant: async (ctx: KoaLike & { oidc: NonNullable<KoaLike['oidc']> }) => {
          const grant = new (ctx.oidc as unknown as { provider: ProviderInstance }).provider.Grant({
            accountId: ctx.oidc.session!.accountId!,
            clientId: ctx.oidc.client!.clientId,
          });
          grant.addOIDCScope(ctx.oidc.params?.scope ?? 'openid');
          await grant.save();
          return grant;
        },
      });
      provider.use(async (ctx, next) => {
        if (ctx.path.startsWith('/interaction/')) {
          const result = self.denyNext
            ? { error: 'access_denied', error_description: 'the person said no' }
            : { login: { accountId: self.nextAccount.sub } };
          self.denyNext = false;
          const to = await provider.interactionResult(ctx.req, ctx.res, result);
          ctx.status = 303;
          ctx.redirect(to);
          return;
        }
        await next();
        if (ctx.path === '/token' && ctx.method === 'POST' && ctx.body && typeof ctx.body === 'object') {
          const body = ctx.body as Record<string, unknown>;
          if (self.tamper) await self.tamper(body);
          for (const k of ['access_token', 'refresh_token', 'id_token'])
            if (typeof body[k] === 'string') self.issuedTokens.push(body[k] as string);
        }
      });
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return self;
}

/** Re-signs an ID token's claims (changed by `edit`) with `key`, keeping the provider's kid. */
export async function resignIdToken(
  idToken: string,
  key: CryptoKey,
  kid: string,
  edit: (claims: Record<string, unknown>) => void,
): Promise<string> {
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  edit(claims);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(key);
}
