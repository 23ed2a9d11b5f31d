// The official SDK's `Client` (`StreamableHTTPClientTransport` with an `authProvider`) against a
// kit MCP server protected by `createProtectedResource` + `createJwtVerifier`, through a full
// authorization-code flow at an authorization server this test runs: metadata (RFC 8414),
// dynamic registration, an authorize endpoint that redirects straight back with a code, a token
// endpoint that checks PKCE and the resource indicator and issues ES256 JWTs, and the JWKS the
// kit server verifies them with. A tool with its own scope is refused 403 `insufficient_scope`,
// and the SDK steps up.
import { createHash, randomUUID, webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpServer, MCP_PUSH_METHODS } from '@jsonrpc-kit/mcp';
import {
  type AuthInfo,
  createJwtVerifier,
  createProtectedResource,
} from '@jsonrpc-kit/mcp/resource-server';
import { createStreamableHttpHandler } from '@jsonrpc-kit/transport-http';
import {
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterEach, describe, expect, it } from 'vitest';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const b64url = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
};

/** What the token endpoint issued. */
interface Grant {
  readonly scope: string;
  readonly resource: string | null;
}

/** The authorization server: metadata, registration, authorize, token (ES256 JWTs), JWKS. */
async function authorizationServer(grants: Grant[]) {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]);
  const jwk = { ...(await webcrypto.subtle.exportKey('jwk', keys.publicKey)), kid: 'as-1' };
  delete (jwk as { key_ops?: unknown }).key_ops;
  const sign = async (claims: Record<string, unknown>): Promise<string> => {
    const input = `${b64url(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'as-1' }))}.${b64url(JSON.stringify(claims))}`;
    const signature = await webcrypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      keys.privateKey,
      new TextEncoder().encode(input),
    );
    return `${input}.${b64url(new Uint8Array(signature))}`;
  };
  const clients = new Map<string, string[]>();
  const codes = new Map<
    string,
    { client: string; challenge: string; redirect: string; scope: string; resource: string | null }
  >();
  let base = '';
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        jwks_uri: `${base}/jwks.json`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (url.pathname === '/jwks.json') return json(200, { keys: [jwk] });
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await bodyOf(req)) as { redirect_uris: string[] };
      const id = randomUUID();
      clients.set(id, metadata.redirect_uris);
      return json(201, { ...metadata, client_id: id, token_endpoint_auth_method: 'none' });
    }
    if (url.pathname === '/authorize') {
      const p = url.searchParams;
      const redirect = p.get('redirect_uri') ?? '';
      if (
        !clients.get(p.get('client_id') ?? '')?.includes(redirect) ||
        p.get('response_type') !== 'code' ||
        p.get('code_challenge_method') !== 'S256'
      ) {
        return json(400, { error: 'invalid_request' });
      }
      const code = randomUUID();
      codes.set(code, {
        client: p.get('client_id')!,
        challenge: p.get('code_challenge')!,
        redirect,
        scope: p.get('scope') ?? '',
        resource: p.get('resource'),
      });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', p.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await bodyOf(req));
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (
        form.get('grant_type') !== 'authorization_code' ||
        grant === undefined ||
        grant.client !== form.get('client_id') ||
        grant.redirect !== form.get('redirect_uri') ||
        createHash('sha256').update(verifier).digest('base64url') !== grant.challenge ||
        (form.get('resource') ?? null) !== grant.resource
      ) {
        return json(400, { error: 'invalid_grant' });
      }
      grants.push({ scope: grant.scope, resource: grant.resource });
      const now = Math.floor(Date.now() / 1000);
      const accessToken = await sign({
        iss: base,
        sub: 'ada',
        aud: grant.resource ?? base,
        client_id: grant.client,
        scope: grant.scope,
        iat: now,
        exp: now + 300,
        jti: randomUUID(),
      });
      return json(200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 300,
        scope: grant.scope,
      });
    }
    json(404, { error: 'not_found' });
  });
  base = await listen(server);
  return base;
}

/** Serves a fetch handler on node:http (streaming its answer; a closed socket aborts it). */
function serveFetch(handler: (request: Request) => Promise<Response>, base: () => string) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const aborter = new AbortController();
    res.once('close', () => aborter.abort());
    const method = req.method ?? 'GET';
    const body = method === 'GET' || method === 'HEAD' ? undefined : await bodyOf(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const response = await handler(
      new Request(new URL(req.url ?? '/', base()), {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: aborter.signal,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) return void res.end();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The client went away.
    }
    res.end();
  };
}

/** The kit's protected MCP server: `whoami` for any token, `erase` declares `files:write`. */
async function protectedServer(issuer: string): Promise<string> {
  let origin = '';
  const mcp = createMcpServer({ name: 'protected-kit', version: '1.0.0' });
  mcp.tool('whoami', {}, (_args, ctx) => {
    const auth = ctx.transport.auth as AuthInfo;
    return `${auth.subject} (${[...auth.scopes].sort().join(' ')})`;
  });
  mcp.tool('erase', { scopes: ['files:write'] }, () => 'erased');
  const node = createServer((req, res) => void serve(req, res));
  origin = await listen(node);
  const resource = `${origin}/mcp`;
  const protect = createProtectedResource({
    resource,
    authorizationServers: [issuer],
    requiredScopes: ['mcp:tools'],
    mcp,
    verify: createJwtVerifier({ jwksUri: `${issuer}/jwks.json`, issuer, audience: resource }),
  });
  const handler = createStreamableHttpHandler(mcp.server, {
    pushMethods: MCP_PUSH_METHODS,
    authenticate: protect.authenticate,
  });
  const serve = serveFetch(protect.fetchHandler(handler), () => origin);
  open.push(
    () => handler.close(),
    () => mcp.close(),
  );
  return resource;
}

/** The SDK's provider: dynamic registration, and a "browser" that follows the redirect. */
class Provider implements OAuthClientProvider {
  clientInfo?: OAuthClientInformationFull;
  saved?: OAuthTokens;
  verifier?: string;
  code?: string | undefined;
  readonly redirects: URL[] = [];
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'sdk-client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationFull) {
    this.clientInfo = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.redirects.push(url);
    const answer = await fetch(url, { redirect: 'manual' });
    await answer.body?.cancel();
    const location = answer.headers.get('location');
    if (answer.status !== 302 || location === null) {
      throw new Error(`the authorize endpoint answered ${answer.status}`);
    }
    this.code = new URL(location).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (this.verifier === undefined) throw new Error('no code verifier');
    return this.verifier;
  }
}

/** Runs `step`; when the SDK stops for the browser, finishes the authorization and runs it again. */
async function authorized<T>(
  provider: Provider,
  transport: () => StreamableHTTPClientTransport,
  step: (t: StreamableHTTPClientTransport) => Promise<T>,
): Promise<T> {
  const first = transport();
  try {
    return await step(first);
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || provider.code === undefined) throw error;
    await first.finishAuth(provider.code);
    provider.code = undefined;
    return step(transport());
  }
}

describe('the SDK Client authorizes against a kit MCP server protected with JWTs', () => {
  it('runs the authorization-code flow, calls tools, and steps up for a tool scope', async () => {
    const grants: Grant[] = [];
    const issuer = await authorizationServer(grants);
    const resource = await protectedServer(issuer);
    const provider = new Provider();

    // Without a token: 401, discovery, registration, authorize, token, then connected.
    let client = new Client({ name: 'sdk', version: '1.0.0' });
    await authorized(
      provider,
      () => new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }),
      async (transport) => {
        client = new Client({ name: 'sdk', version: '1.0.0' });
        await client.connect(transport);
      },
    );
    open.push(() => client.close());
    expect(provider.redirects).toHaveLength(1);
    const first = provider.redirects[0]!;
    expect(first.searchParams.get('resource')).toBe(resource);
    expect(first.searchParams.get('scope')).toBe('mcp:tools');
    expect(grants).toEqual([{ scope: 'mcp:tools', resource }]);

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['erase', 'whoami']);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.content).toEqual([{ type: 'text', text: 'ada (mcp:tools)' }]);

    // `erase` needs files:write: 403 insufficient_scope, the SDK asks again for it.
    await expect(client.callTool({ name: 'erase', arguments: {} })).rejects.toThrow(
      UnauthorizedError,
    );
    expect(provider.redirects).toHaveLength(2);
    expect(provider.redirects[1]!.searchParams.get('scope')?.split(' ').sort()).toEqual([
      'files:write',
      'mcp:tools',
    ]);
    await client.close();
    const erased = await authorized(
      provider,
      () => new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }),
      async (transport) => {
        client = new Client({ name: 'sdk', version: '1.0.0' });
        await client.connect(transport);
        return client.callTool({ name: 'erase', arguments: {} });
      },
    );
    expect(erased.content).toEqual([{ type: 'text', text: 'erased' }]);
    expect(grants.at(-1)?.scope.split(' ').sort()).toEqual(['files:write', 'mcp:tools']);
  }, 20_000);

  it('refuses a JWT of the same authorization server issued for another resource', async () => {
    const grants: Grant[] = [];
    const issuer = await authorizationServer(grants);
    const resource = await protectedServer(issuer);
    const redirect = 'http://127.0.0.1:9/callback';
    const registered = (await (
      await fetch(`${issuer}/register`, {
        method: 'POST',
        body: JSON.stringify({ redirect_uris: [redirect] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomUUID() + randomUUID();
    const authorize = new URL(`${issuer}/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: redirect,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'mcp:tools',
      resource: 'http://127.0.0.1:1/elsewhere',
    })) {
      authorize.searchParams.set(name, value);
    }
    const redirected = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirected.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const issued = (await (
      await fetch(`${issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: registered.client_id,
          redirect_uri: redirect,
          code_verifier: verifier,
          resource: 'http://127.0.0.1:1/elsewhere',
        }),
      })
    ).json()) as { access_token: string };
    expect(grants).toEqual([{ scope: 'mcp:tools', resource: 'http://127.0.0.1:1/elsewhere' }]);

    const response = await fetch(resource, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${issued.access_token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await response.body?.cancel();
  });
});
