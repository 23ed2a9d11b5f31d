// Both sides of MCP authorization over real HTTP: a kit MCP server protected by
// `createProtectedResource`, an authorization server the test writes (metadata, dynamic
// registration, an authorization endpoint that redirects at once, a token endpoint that checks
// PKCE and the resource indicator), and the kit client with `createOAuthClient`.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createStreamableHttpNodeHandler,
  createStreamableHttpTransport,
} from '@jsonrpc-kit/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpClient, createMcpFetch, createOAuthClient } from '../client-index.js';
import { createMcpServer, MCP_PUSH_METHODS } from '../index.js';
import { type AuthInfo, createProtectedResource } from '../resource-server-index.js';

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

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
};

interface Issued {
  readonly token: string;
  readonly resource: string | null;
  readonly scope: string | null;
}

/** An authorization server: DCR, an authorize endpoint that redirects at once, PKCE checked. */
async function authorizationServer(issued: Issued[], requests: string[]): Promise<string> {
  let base = '';
  const challenges = new Map<string, { challenge: string; scope: string | null }>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        }),
      );
    } else if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await bodyOf(req)) as { redirect_uris: string[] };
      res.writeHead(201, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...metadata,
          client_id: 'client-1',
          token_endpoint_auth_method: 'none',
        }),
      );
    } else if (url.pathname === '/authorize') {
      const code = randomUUID();
      challenges.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        scope: url.searchParams.get('scope'),
      });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
    } else if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await bodyOf(req));
      const grant = challenges.get(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (grant === undefined || grant.challenge !== computed) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
        return;
      }
      const token = `token-${issued.length + 1}`;
      issued.push({ token, resource: form.get('resource'), scope: grant.scope });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(
        JSON.stringify({
          access_token: token,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: grant.scope,
        }),
      );
    } else res.writeHead(404).end();
  });
  base = await listen(server);
  return base;
}

/** A kit MCP server behind `createProtectedResource`; its tool answers who called. */
async function protectedServer(issuer: string, issued: Issued[]): Promise<string> {
  let resource = '';
  const mcp = createMcpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('whoami', {}, (_args, ctx) => String((ctx.transport.auth as AuthInfo).subject));
  const http = createServer((req, res) => {
    const answer = protect.metadataResponse(new Request(new URL(req.url ?? '/', resource)));
    if (answer !== undefined) {
      void answer
        .text()
        .then((text) => res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text));
      return;
    }
    handler(req, res);
  });
  const origin = await listen(http);
  resource = `${origin}/mcp`;
  const protect = createProtectedResource({
    resource,
    authorizationServers: [issuer],
    requiredScopes: ['mcp:tools'],
    verify: (token) => {
      const grant = issued.find((i) => i.token === token);
      if (grant === undefined) return undefined;
      return {
        scopes: grant.scope?.split(' ') ?? [],
        subject: 'ada',
        ...(grant.resource === null ? {} : { audience: grant.resource }),
      };
    },
  });
  const handler = createStreamableHttpNodeHandler(mcp.server, {
    pushMethods: MCP_PUSH_METHODS,
    authenticate: protect.authenticate,
  });
  open.push(
    () => handler.close(),
    () => mcp.close(),
  );
  return resource;
}

describe('MCP authorization', () => {
  it('refuses a request without a token with 401 and the resource metadata', async () => {
    const issuer = await authorizationServer([], []);
    const url = await protectedServer(issuer, []);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`);
    expect(challenge).toContain('scope="mcp:tools"');
    const metadata = await (await fetch(metadataUrl!)).json();
    expect(metadata).toEqual({
      resource: url,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
    });
  });

  it('runs discovery, registration and the authorization-code flow with PKCE, then calls', async () => {
    const issued: Issued[] = [];
    const requests: string[] = [];
    const issuer = await authorizationServer(issued, requests);
    const url = await protectedServer(issuer, issued);
    const authorized: string[] = [];
    const auth = createOAuthClient({
      redirectUri: 'http://127.0.0.1:1/callback',
      clientMetadata: { client_name: 'test host' },
      authorize: async (authorizationUrl) => {
        authorized.push(authorizationUrl.href);
        const response = await fetch(authorizationUrl, { redirect: 'manual' });
        return response.headers.get('location') ?? '';
      },
    });
    const http = createMcpFetch({ auth });
    const mcp = createMcpClient(createStreamableHttpTransport({ url, fetch: http }), {
      name: 'host',
      version: '1',
      http,
    });
    open.push(() => mcp.close());
    await mcp.connect();
    expect(await mcp.callTool('whoami')).toEqual({ content: [{ type: 'text', text: 'ada' }] });
    expect(issued).toEqual([{ token: 'token-1', resource: url, scope: 'mcp:tools' }]);
    const query = new URL(authorized[0]!).searchParams;
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('resource')).toBe(url);
    expect(query.get('client_id')).toBe('client-1');
    expect(requests).toEqual([
      'GET /.well-known/oauth-authorization-server',
      'POST /register',
      'GET /authorize',
      'POST /token',
    ]);
  });

  it('gives up after maxAttempts when the server keeps refusing the tokens', async () => {
    const issued: Issued[] = [];
    const issuer = await authorizationServer(issued, []);
    // The server accepts no token: every flow ends in another 401.
    const url = await protectedServer(issuer, []);
    let flows = 0;
    const auth = createOAuthClient({
      redirectUri: 'http://127.0.0.1:1/callback',
      maxAttempts: 2,
      authorize: async (authorizationUrl) => {
        flows++;
        const response = await fetch(authorizationUrl, { redirect: 'manual' });
        return response.headers.get('location') ?? '';
      },
    });
    const http = createMcpFetch({ auth });
    const mcp = createMcpClient(createStreamableHttpTransport({ url, fetch: http }), {
      name: 'host',
      version: '1',
    });
    open.push(() => mcp.close());
    await expect(mcp.connect()).rejects.toMatchObject({ status: 401 });
    expect(flows).toBe(2);
  });
});
