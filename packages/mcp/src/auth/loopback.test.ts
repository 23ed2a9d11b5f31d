// The loopback redirect receiver (RFC 8252) on a real port of 127.0.0.1: the browser is played by
// `fetch` following the authorization server's redirect to it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpFetch, createOAuthClient } from '../client-index.js';
import { createLoopbackReceiver, type LoopbackReceiver } from '../loopback-index.js';

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function receiver(
  options: Partial<Parameters<typeof createLoopbackReceiver>[0]> = {},
): Promise<LoopbackReceiver> {
  const r = await createLoopbackReceiver({ open: () => undefined, ...options });
  open.push(r);
  return r;
}

/** An authorization URL of a made-up server, with a `state`. */
const authorizationUrl = (state: string): URL =>
  new URL(`https://auth.example.com/authorize?state=${state}&client_id=c`);

describe('createLoopbackReceiver', () => {
  it('listens on 127.0.0.1 on a free port and resolves with the redirect, answering the browser a page', async () => {
    let page: Response | undefined;
    const r = await receiver({
      open: async (url) => {
        // The authorization server's redirect, followed by the "browser".
        const state = url.searchParams.get('state');
        page = await fetch(`${r.redirectUri}?code=the-code&state=${state}&iss=x`);
      },
    });
    expect(r.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(r.redirectUri).not.toMatch(/:0\//);
    const callback = new URL(await r.authorize(authorizationUrl('s1')));
    expect(callback.searchParams.get('code')).toBe('the-code');
    expect(callback.searchParams.get('state')).toBe('s1');
    expect(page?.status).toBe(200);
    expect(page?.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page?.text()).toMatch(/Authorization complete/);
  });

  it('ignores a redirect with another state (400) and keeps waiting for its own', async () => {
    const answers: number[] = [];
    const r = await receiver({
      open: async (url) => {
        answers.push((await fetch(`${r.redirectUri}?code=forged&state=other`)).status);
        answers.push((await fetch(`${r.redirectUri.replace('/callback', '/elsewhere')}`)).status);
        const state = url.searchParams.get('state');
        answers.push((await fetch(`${r.redirectUri}?code=real&state=${state}`)).status);
      },
    });
    const callback = new URL(await r.authorize(authorizationUrl('mine')));
    expect(callback.searchParams.get('code')).toBe('real');
    expect(answers).toEqual([400, 400, 200]);
  });

  it('hands on an error redirect and shows it to the user, escaped', async () => {
    let text = '';
    const r = await receiver({
      open: async (url) => {
        const state = url.searchParams.get('state');
        const response = await fetch(
          `${r.redirectUri}?error=access_denied&error_description=${encodeURIComponent('<b>no</b>')}&state=${state}`,
        );
        text = await response.text();
      },
    });
    const callback = new URL(await r.authorize(authorizationUrl('e')));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(text).toMatch(/Authorization failed/);
    expect(text).toContain('&lt;b&gt;no&lt;/b&gt;');
  });

  it('rejects after the timeout when no redirect comes', async () => {
    const r = await receiver({ timeoutMs: 150 });
    const started = Date.now();
    await expect(r.authorize(authorizationUrl('late'))).rejects.toThrow(/within 150 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects a pending authorization when closed, and stops listening', async () => {
    const r = await receiver();
    const pending = r.authorize(authorizationUrl('p'));
    await r.close();
    await expect(pending).rejects.toThrow(/closed/);
    await expect(fetch(`${r.redirectUri}?state=p`)).rejects.toThrow();
    await expect(r.authorize(authorizationUrl('q'))).rejects.toThrow(/closed/);
  });

  it('is the browser step of createOAuthClient against an authorization server that redirects', async () => {
    // A protected resource and an authorization server on one node:http server.
    let base = '';
    const server: Server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', base);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body));
      };
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (url.pathname === '/authorize') {
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', 'c0de');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/token') {
        return json(200, { access_token: 'the-token', token_type: 'Bearer', expires_in: 60 });
      }
      if (url.pathname === '/mcp') {
        if (req.headers.authorization === 'Bearer the-token') return json(200, { ok: true });
        return json(
          401,
          {},
          {
            'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
      }
      json(404, {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const redirectsTo: string[] = [];
    const r = await receiver({
      open: async (url) => {
        const answer = await fetch(url, { redirect: 'manual' });
        const location = answer.headers.get('location') ?? '';
        redirectsTo.push(location);
        await fetch(location);
      },
    });
    const http = createMcpFetch({
      auth: createOAuthClient({
        clientId: 'cli',
        redirectUri: r.redirectUri,
        authorize: r.authorize,
      }),
    });
    const response = await http(`${base}/mcp`, { method: 'GET' });
    expect(response.status).toBe(200);
    expect(redirectsTo).toHaveLength(1);
    expect(redirectsTo[0]?.startsWith(`${r.redirectUri}?`)).toBe(true);
  });
});
