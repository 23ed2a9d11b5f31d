// A kit MCP server protected by `createProtectedResource` with `createJwtVerifier`: JWT access
// tokens signed with a real key, checked against the JWKS a node:http server publishes, with
// per-tool scopes answered 403 `insufficient_scope`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createStreamableHttpHandler,
  createStreamableHttpNodeHandler,
  createStreamableHttpTransport,
} from '@jsonrpc-kit/transport-http';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpClient, createMcpFetch, type McpAuthProvider } from '../client-index.js';
import {
  createMcpFetchHandler,
  createMcpNodeHandler,
  createMcpServer,
  MCP_PUSH_METHODS,
} from '../index.js';
import {
  type AuthInfo,
  createJwtVerifier,
  createProtectedResource,
} from '../resource-server-index.js';
import { parseWwwAuthenticate } from './www-authenticate.js';

const RESOURCE = 'http://127.0.0.1:1/mcp';
let issuer: string;
let jwksServer: Server;
let jwksRequests = 0;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('ES256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      jwksRequests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  jwksServer.closeAllConnections();
  await new Promise((resolve) => jwksServer.close(resolve));
});

/** A signed access token; `claims` override the defaults. */
function token(claims: JWTPayload = {}, key: CryptoKey = signingKey, kid = 'k1'): Promise<string> {
  return new SignJWT({ scope: 'read', client_id: 'c1', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : issuer)
    .setSubject('alice')
    .setAudience((claims.aud as string | undefined) ?? RESOURCE)
    .setIssuedAt()
    .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : '5m')
    .sign(key);
}

/**
 * The protected endpoint, and the answers it gave. `delete_file` needs `files:write` (in
 * `toolScopes`), `archive` declares `files:archive` itself; `wrapped: false` leaves out
 * `fetchHandler`, so only the tool's own check stands.
 */
function endpoint(wrapped = true) {
  const mcp = createMcpServer({ name: 'protected', version: '1.0.0' });
  const protect = createProtectedResource({
    resource: RESOURCE,
    authorizationServers: [issuer],
    verify: createJwtVerifier({ jwksUri: `${issuer}/jwks.json`, issuer, audience: RESOURCE }),
    toolScopes: { delete_file: ['files:write'] },
    mcp,
  });
  mcp.tool('whoami', {}, (_args, ctx) => {
    const auth = ctx.transport.auth as AuthInfo;
    return `${auth.subject} via ${auth.clientId} with ${auth.scopes.join(',')}`;
  });
  mcp.tool('delete_file', {}, () => 'deleted');
  mcp.tool('archive', { scopes: ['files:archive'] }, () => 'archived');
  const inner = createStreamableHttpHandler(mcp.server, {
    authenticate: protect.authenticate,
    pushMethods: MCP_PUSH_METHODS,
  });
  const handler = wrapped ? protect.fetchHandler(inner) : inner;
  const answers: Response[] = [];
  const fetchFn = async (input: string, init: RequestInit): Promise<Response> => {
    const response = await handler(new Request(input, init));
    answers.push(response.clone());
    return response;
  };
  return { protect, fetchFn, answers };
}

/** A client sending `Bearer <value>`, never running a flow. */
function client(
  fetchFn: (input: string, init: RequestInit) => Promise<Response>,
  value?: string,
  protocolVersion?: string,
) {
  const auth: McpAuthProvider = {
    authorization: async () => (value === undefined ? undefined : `Bearer ${value}`),
    unauthorized: async () => false,
  };
  const http = createMcpFetch({ fetch: fetchFn, auth });
  return createMcpClient(createStreamableHttpTransport({ url: RESOURCE, fetch: http }), {
    name: 't',
    version: '1',
    http,
    client: { callTimeout: 5_000 },
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
  });
}

describe('createJwtVerifier with createProtectedResource', () => {
  it('lets a valid token in, with its principal in the handler context', async () => {
    const { fetchFn } = endpoint();
    const before = jwksRequests;
    const mcp = client(fetchFn, await token());
    try {
      await mcp.connect();
      const result = await mcp.callTool('whoami');
      expect(result.content).toEqual([{ type: 'text', text: 'alice via c1 with read' }]);
    } finally {
      await mcp.close();
    }
    expect(jwksRequests).toBeGreaterThan(before);
  });

  it.each([
    ['no token', async () => undefined, undefined],
    ['another audience', () => token({ aud: 'http://127.0.0.1:2/mcp' }), 'invalid_token'],
    ['another issuer', () => token({ iss: 'http://127.0.0.1:3' }), 'invalid_token'],
    [
      'an expired token',
      () => token({ exp: Math.floor(Date.now() / 1000) - 120 }),
      'invalid_token',
    ],
    ['a key not in the JWKS', () => token({}, strangerKey, 'k2'), 'invalid_token'],
    ['a known kid, signed by another key', () => token({}, strangerKey, 'k1'), 'invalid_token'],
  ])('answers %s with 401 and the metadata URL', async (_name, make, error) => {
    const { protect, fetchFn, answers } = endpoint();
    const mcp = client(fetchFn, await make());
    try {
      await expect(mcp.connect()).rejects.toThrow();
    } finally {
      await mcp.close().catch(() => undefined);
    }
    const refused = answers.find((a) => a.status === 401);
    expect(refused?.status).toBe(401);
    const [challenge] = parseWwwAuthenticate(refused?.headers.get('www-authenticate'));
    expect(challenge?.scheme).toBe('bearer');
    expect(challenge?.params.resource_metadata).toBe(protect.metadataUrl);
    expect(challenge?.params.error).toBe(error);
  });

  it('answers a tool call without the tool scopes 403 insufficient_scope, and lets it in with them', async () => {
    const { protect, fetchFn, answers } = endpoint();
    const reader = client(fetchFn, await token({ scope: 'read' }));
    try {
      await reader.connect();
      await expect(reader.callTool('delete_file')).rejects.toThrow();
    } finally {
      await reader.close();
    }
    const refused = answers.find((a) => a.status === 403);
    expect(refused?.status).toBe(403);
    const [challenge] = parseWwwAuthenticate(refused?.headers.get('www-authenticate'));
    expect(challenge?.params).toMatchObject({
      error: 'insufficient_scope',
      resource_metadata: protect.metadataUrl,
    });
    expect(challenge?.params.scope?.split(' ').sort()).toEqual(['files:write', 'read']);
    expect(protect.metadata.scopes_supported).toEqual(['files:write']);

    const writer = client(fetchFn, await token({ scope: 'read files:write' }));
    try {
      await writer.connect();
      const result = await writer.callTool('delete_file');
      expect(result.content).toEqual([{ type: 'text', text: 'deleted' }]);
    } finally {
      await writer.close();
    }
  });

  it('checks the signature, issuer, audience and expiry itself', async () => {
    const verify = createJwtVerifier({
      jwksUri: `${issuer}/jwks.json`,
      issuer,
      audience: RESOURCE,
    });
    await expect(verify(await token())).resolves.toMatchObject({
      subject: 'alice',
      scopes: ['read'],
      clientId: 'c1',
    });
    // The audience with a trailing slash is the same resource.
    await expect(verify(await token({ aud: `${RESOURCE}/` }))).resolves.toMatchObject({
      subject: 'alice',
    });
    await expect(verify(await token({ aud: 'http://127.0.0.1:2/mcp' }))).rejects.toThrow(/aud/);
    await expect(verify(await token({ iss: 'http://127.0.0.1:3' }))).rejects.toThrow(/iss/);
    await expect(verify(await token({ exp: Math.floor(Date.now() / 1000) - 120 }))).rejects.toThrow(
      /exp/,
    );
    await expect(verify(await token({}, strangerKey, 'k1'))).rejects.toThrow(/signature/);
    await expect(verify(await token({ scp: ['a', 'b'], scope: undefined }))).resolves.toMatchObject(
      { scopes: ['a', 'b'] },
    );
  });

  it('refuses a tool that declares its scopes: 403 through fetchHandler, -32003 at the tool', async () => {
    const { fetchFn, answers } = endpoint();
    const reader = client(fetchFn, await token({ scope: 'read' }));
    try {
      await reader.connect();
      await expect(reader.callTool('archive')).rejects.toThrow();
      // An unknown tool named like an Object member is no crash, just an unknown tool.
      await expect(reader.callTool('constructor')).rejects.toThrow(/Unknown tool/);
    } finally {
      await reader.close();
    }
    const refused = answers.find((a) => a.status === 403);
    const [challenge] = parseWwwAuthenticate(refused?.headers.get('www-authenticate'));
    expect(challenge?.params.error).toBe('insufficient_scope');
    expect(challenge?.params.scope?.split(' ').sort()).toEqual(['files:archive', 'read']);

    const bare = endpoint(false);
    const direct = client(bare.fetchFn, await token({ scope: 'read' }));
    try {
      await direct.connect();
      await expect(direct.callTool('archive')).rejects.toMatchObject({ code: -32003 });
      await expect(direct.callTool('whoami')).resolves.toBeDefined();
    } finally {
      await direct.close();
    }
    expect(bare.answers.some((a) => a.status === 403)).toBe(false);

    const archiver = client(fetchFn, await token({ scope: 'read files:archive' }));
    try {
      await archiver.connect();
      const result = await archiver.callTool('archive');
      expect(result.content).toEqual([{ type: 'text', text: 'archived' }]);
    } finally {
      await archiver.close();
    }
  });

  it('authenticates stateless 2026-07-28 requests too, with the principal in the context', async () => {
    const mcp = createMcpServer({ name: 'protected', version: '1.0.0' });
    const protect = createProtectedResource({
      resource: RESOURCE,
      authorizationServers: [issuer],
      verify: createJwtVerifier({ jwksUri: `${issuer}/jwks.json`, issuer, audience: RESOURCE }),
      mcp,
    });
    mcp.tool('whoami', {}, (_args, ctx) => String((ctx.transport.auth as AuthInfo).subject));
    mcp.tool('archive', { scopes: ['files:archive'] }, () => 'archived');
    const legacy = createStreamableHttpHandler(mcp.server, {
      authenticate: protect.authenticate,
      pushMethods: MCP_PUSH_METHODS,
    });
    const endpoint = createMcpFetchHandler(mcp, legacy, { authenticate: protect.authenticate });
    const answers: Response[] = [];
    const fetchFn = async (input: string, init: RequestInit) => {
      const response = await endpoint(new Request(input, init));
      answers.push(response.clone());
      return response;
    };
    const anonymous = client(fetchFn, undefined, '2026-07-28');
    await expect(anonymous.connect()).rejects.toThrow();
    await anonymous.close().catch(() => undefined);
    const refused = answers.find((a) => a.status === 401);
    expect(refused?.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);

    const alice = client(fetchFn, await token(), '2026-07-28');
    try {
      await alice.connect();
      const who = await alice.callTool('whoami');
      expect(who.content).toEqual([{ type: 'text', text: 'alice' }]);
      // Behind the MCP handler the tool's own check answers (no fetchHandler here).
      await expect(alice.callTool('archive')).rejects.toMatchObject({ code: -32003 });
    } finally {
      await alice.close();
    }
    // Every request of this client went the stateless way (no session).
    expect(answers.every((a) => a.headers.get('mcp-session-id') === null)).toBe(true);
  });

  it('on node:http too: nodeHandler answers 403 for a tool scope, over sessions and stateless requests', async () => {
    const mcp = createMcpServer({ name: 'protected', version: '1.0.0' });
    let resource = '';
    mcp.tool('whoami', {}, (_args, ctx) => String((ctx.transport.auth as AuthInfo).subject));
    mcp.tool('archive', { scopes: ['files:archive'] }, () => 'archived');
    const statuses: number[] = [];
    const server = createServer((req, res) => {
      res.once('finish', () => statuses.push(res.statusCode));
      guarded(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    resource = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const protect = createProtectedResource({
      resource,
      authorizationServers: [issuer],
      verify: createJwtVerifier({ jwksUri: `${issuer}/jwks.json`, issuer, audience: resource }),
      mcp,
    });
    const legacy = createStreamableHttpNodeHandler(mcp.server, {
      authenticate: protect.authenticate,
      pushMethods: MCP_PUSH_METHODS,
    });
    const guarded = protect.nodeHandler(
      createMcpNodeHandler(mcp, legacy, { authenticate: protect.authenticate }),
    );
    try {
      const metadata = await fetch(new URL(protect.metadataPath, resource));
      expect(await metadata.json()).toMatchObject({ resource });
      for (const version of [undefined, '2026-07-28']) {
        const http = createMcpFetch({
          auth: {
            authorization: async () => `Bearer ${await token({ aud: resource })}`,
            unauthorized: async () => false,
          },
        });
        const mcpClient = createMcpClient(
          createStreamableHttpTransport({ url: resource, fetch: http }),
          {
            name: 't',
            version: '1',
            http,
            client: { callTimeout: 5_000 },
            ...(version === undefined ? {} : { protocolVersion: version }),
          },
        );
        try {
          await mcpClient.connect();
          const who = await mcpClient.callTool('whoami');
          expect(who.content).toEqual([{ type: 'text', text: 'alice' }]);
          statuses.length = 0;
          await expect(mcpClient.callTool('archive')).rejects.toThrow();
          expect(statuses).toContain(403);
        } finally {
          await mcpClient.close();
        }
      }
    } finally {
      await legacy.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('serves the protected-resource metadata from the wrapped handler', async () => {
    const { protect, fetchFn } = endpoint();
    const response = await fetchFn(`http://127.0.0.1:1${protect.metadataPath}`, { method: 'GET' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [issuer],
    });
  });
});
