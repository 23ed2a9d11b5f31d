// The grants and proofs of `createOAuthClient` beyond the authorization code, against an
// authorization server and a protected endpoint this test runs on 127.0.0.1: client credentials
// with `private_key_jwt` (the assertion verified with the client's public key), the JWT-bearer
// grant (not tried again after a refusal), and DPoP (proofs checked at the token endpoint and on
// each request, `ath` bound to the token, a nonce asked for by both servers).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  generateKeyPair,
  importJWK,
  type JWK,
  jwtVerify,
} from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMcpFetch,
  createOAuthClient,
  type OAuthClientOptions,
  requestIdJag,
} from '../client-index.js';

const open: Server[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
};

/** Checks a DPoP proof; its key's thumbprint, or an error. */
async function checkProof(
  proof: string | undefined,
  method: string,
  url: string,
  token?: string,
): Promise<{ jkt: string; nonce?: unknown; jti: unknown } | string> {
  if (proof === undefined) return 'no proof';
  const header = decodeProtectedHeader(proof);
  if (header.typ !== 'dpop+jwt' || header.jwk === undefined) return 'bad header';
  try {
    const key = await importJWK(header.jwk as JWK, header.alg);
    const { payload } = await jwtVerify(proof, key);
    if (payload.htm !== method || payload.htu !== url) return 'htm or htu';
    if (token !== undefined) {
      const ath = createHash('sha256').update(token).digest('base64url');
      if (payload.ath !== ath) return 'ath';
    }
    return {
      jkt: await calculateJwkThumbprint(header.jwk as JWK),
      nonce: payload.nonce,
      jti: payload.jti,
    };
  } catch (error) {
    return String(error);
  }
}

interface Seen {
  readonly tokenRequests: URLSearchParams[];
  readonly proofs: Array<{ jkt: string; nonce?: unknown; jti: unknown } | string>;
  readonly schemes: string[];
}

/**
 * One node:http server: protected-resource and authorization-server metadata, a token endpoint
 * (`token` decides its answer), and `/mcp`, which wants the token it issued (and, when bound, a
 * proof of its key with the nonce).
 */
async function servers(
  metadata: Record<string, unknown>,
  token: (
    form: URLSearchParams,
    req: IncomingMessage,
    base: string,
  ) => Promise<{ status: number; body: Record<string, unknown>; headers?: Record<string, string> }>,
): Promise<{ base: string; seen: Seen }> {
  const seen: Seen = { tokenRequests: [], proofs: [], schemes: [] };
  let base = '';
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      json(200, {
        resource: `${base}/mcp`,
        authorization_servers: [base],
        scopes_supported: ['s1'],
      });
    } else if (url.pathname === '/.well-known/oauth-authorization-server') {
      json(200, { issuer: base, token_endpoint: `${base}/token`, ...metadata });
    } else if (url.pathname === '/token') {
      const form = new URLSearchParams(await bodyOf(req));
      seen.tokenRequests.push(form);
      const answer = await token(form, req, base);
      json(answer.status, answer.body, answer.headers);
    } else if (url.pathname === '/mcp') {
      const [scheme = '', value] = (req.headers.authorization ?? '').split(' ');
      if (value === undefined) {
        json(
          401,
          {},
          {
            'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
        return;
      }
      seen.schemes.push(scheme);
      if (scheme === 'DPoP') {
        const proof = await checkProof(
          req.headers.dpop as string | undefined,
          req.method ?? '',
          `${base}/mcp`,
          value,
        );
        seen.proofs.push(proof);
        if (typeof proof === 'string' || `jkt:${proof.jkt}` !== value) {
          json(401, {}, { 'www-authenticate': 'DPoP error="invalid_token"' });
          return;
        }
        if (proof.nonce !== 'rs-nonce') {
          json(
            401,
            {},
            {
              'www-authenticate': 'DPoP error="use_dpop_nonce"',
              'dpop-nonce': 'rs-nonce',
            },
          );
          return;
        }
      }
      json(200, { ok: true, token: value });
    } else json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen };
}

const call = (options: OAuthClientOptions, url: string) =>
  createMcpFetch({ auth: createOAuthClient(options) })(url, { method: 'POST', body: '{}' });

describe('createOAuthClient grants', () => {
  it('client_credentials with private_key_jwt: an assertion signed with the client key, for the issuer', async () => {
    const keys = await generateKeyPair('ES256');
    const { base, seen } = await servers(
      { token_endpoint_auth_methods_supported: ['private_key_jwt'] },
      async (form, _req, issuer) => {
        try {
          const { payload } = await jwtVerify(form.get('client_assertion') ?? '', keys.publicKey, {
            audience: issuer,
            issuer: 'machine',
            subject: 'machine',
          });
          if (typeof payload.jti !== 'string') throw new Error('no jti');
        } catch (error) {
          return {
            status: 401,
            body: { error: 'invalid_client', error_description: String(error) },
          };
        }
        return { status: 200, body: { access_token: 'cc-token', token_type: 'Bearer' } };
      },
    );
    const response = await call(
      {
        grant: { type: 'client_credentials' },
        clientId: 'machine',
        clientPrivateKey: keys.privateKey,
      },
      `${base}/mcp`,
    );
    expect(await response.json()).toEqual({ ok: true, token: 'cc-token' });
    const [form] = seen.tokenRequests;
    expect(form?.get('grant_type')).toBe('client_credentials');
    expect(form?.get('client_assertion_type')).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    expect(form?.get('scope')).toBe('s1');
    expect(form?.get('resource')).toBe(`${base}/mcp`);
  });

  it('jwt_bearer: sends the assertion once, and does not try again when it is refused', async () => {
    const contexts: unknown[] = [];
    const { base, seen } = await servers({}, async () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'expired assertion' },
    }));
    const options: OAuthClientOptions = {
      grant: {
        type: 'jwt_bearer',
        assertion: (context) => {
          contexts.push(context);
          return 'workload.jwt.here';
        },
      },
      clientId: 'workload',
    };
    await expect(call(options, `${base}/mcp`)).rejects.toThrow(/invalid_grant|expired/);
    expect(seen.tokenRequests).toHaveLength(1);
    expect(seen.tokenRequests[0]?.get('grant_type')).toBe(
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
    );
    expect(seen.tokenRequests[0]?.get('assertion')).toBe('workload.jwt.here');
    expect(contexts).toEqual([
      { issuer: base, tokenEndpoint: `${base}/token`, resource: `${base}/mcp`, scope: 's1' },
    ]);
  });

  it('refuses a grant without what it needs', () => {
    expect(() => createOAuthClient({ grant: { type: 'client_credentials' } })).toThrow(/clientId/);
    expect(() => createOAuthClient({ clientId: 'x' })).toThrow(/redirectUri and authorize/);
  });

  it('dpop: binds the token to its key, with a fresh proof per request and the nonces asked for', async () => {
    let challenged = false;
    const { base, seen } = await servers(
      { dpop_signing_alg_values_supported: ['ES256'] },
      async (_form, req, issuer) => {
        const proof = await checkProof(
          req.headers.dpop as string | undefined,
          'POST',
          `${issuer}/token`,
        );
        seen.proofs.push(proof);
        if (typeof proof === 'string')
          return { status: 400, body: { error: 'invalid_dpop_proof' } };
        if (proof.nonce !== 'as-nonce') {
          challenged = true;
          return {
            status: 400,
            body: { error: 'use_dpop_nonce' },
            headers: { 'dpop-nonce': 'as-nonce' },
          };
        }
        return { status: 200, body: { access_token: `jkt:${proof.jkt}`, token_type: 'DPoP' } };
      },
    );
    const http = createMcpFetch({
      auth: createOAuthClient({ grant: { type: 'client_credentials' }, clientId: 'm', dpop: true }),
    });
    const first = await http(`${base}/mcp`, { method: 'POST', body: '{}' });
    expect(first.status).toBe(200);
    const second = await http(`${base}/mcp`, { method: 'POST', body: '{}' });
    expect(second.status).toBe(200);
    expect(challenged).toBe(true);
    expect(seen.tokenRequests).toHaveLength(2);
    expect(seen.schemes.every((scheme) => scheme === 'DPoP')).toBe(true);
    const proofs = seen.proofs.filter((p) => typeof p !== 'string');
    expect(proofs).toHaveLength(seen.proofs.length);
    // One key throughout, a new jti each time, the resource's nonce once it was asked for.
    expect(new Set(proofs.map((p) => p.jkt)).size).toBe(1);
    expect(new Set(proofs.map((p) => p.jti)).size).toBe(proofs.length);
    expect(proofs.at(-1)?.nonce).toBe('rs-nonce');
  });

  it('requestIdJag: exchanges the ID token for an ID-JAG at the identity provider', async () => {
    const forms: URLSearchParams[] = [];
    let issuedType = 'urn:ietf:params:oauth:token-type:id-jag';
    const idp = createServer(async (req, res) => {
      const form = new URLSearchParams(await bodyOf(req));
      forms.push(form);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          access_token: 'the.id.jag',
          issued_token_type: issuedType,
          token_type: 'N_A',
        }),
      );
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    open.push(idp);
    const tokenEndpoint = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/token`;
    const options = {
      tokenEndpoint,
      clientId: 'idp-client',
      idToken: 'the.id.token',
      audience: 'https://as.example.com',
      resource: 'https://mcp.example.com/mcp',
      scope: 'notes',
    };
    await expect(requestIdJag(options)).resolves.toBe('the.id.jag');
    expect(Object.fromEntries(forms[0] ?? [])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: 'the.id.token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: 'https://as.example.com',
      resource: 'https://mcp.example.com/mcp',
      scope: 'notes',
      client_id: 'idp-client',
    });
    issuedType = 'urn:ietf:params:oauth:token-type:access_token';
    await expect(requestIdJag(options)).rejects.toThrow(/not an ID-JAG/);
  });
});
