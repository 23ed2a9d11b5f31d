/**
 * workerd, through miniflare: a Worker bundled with esbuild. Its fetch handler answers the
 * specification's examples, batches, limits and CORS over real HTTP; from inside the Worker, the
 * client calls the conformance server on Node over HTTP and WebSocket.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECTED } from './fixtures/client-scenario.js';
import { ALLOWED_ORIGIN } from './fixtures/conformance-fetch.js';
import { bundle } from './support/bundle.js';
import { useConformanceServer } from './support/conformance.js';
import { stopAll } from './support/processes.js';
import { httpSuite } from './support/wire-suite.js';

afterAll(stopAll);

describe('workerd (miniflare): the fetch handler as a Worker', () => {
  let mf: Miniflare | undefined;
  let url = '';
  let script = '';
  beforeAll(async () => {
    script = await bundle('worker.ts', { conditions: ['workerd', 'worker', 'browser'] });
    mf = new Miniflare({
      modules: true,
      script,
      compatibilityDate: '2025-01-01',
      host: '127.0.0.1',
      port: 0,
    });
    url = (await mf.ready).href;
  }, 30_000);
  afterAll(async () => {
    await mf?.dispose();
  });

  it('bundles without a node: module or undici', () => {
    expect(script).not.toMatch(/from ["']node:|undici/);
  });

  httpSuite(() => url, { allowedOrigin: ALLOWED_ORIGIN });

  describe('the client in the Worker', () => {
    const conformance = useConformanceServer();

    it('calls, errors, batches, auto-batching, a valibot contract, abort and timeout', async () => {
      const query = new URLSearchParams({ http: conformance().httpUrl, ws: conformance().wsUrl });
      const response = await fetch(new URL(`/client?${query}`, url), {
        signal: AbortSignal.timeout(20_000),
      });
      expect(await response.json()).toEqual(EXPECTED);
    }, 25_000);
  });
});
