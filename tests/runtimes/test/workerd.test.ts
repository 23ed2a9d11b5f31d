/**
 * workerd, through miniflare: the fetch handler bundled with esbuild as a Worker, answering the
 * specification's examples, batches, limits and CORS over real HTTP.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_ORIGIN } from './fixtures/conformance-fetch.js';
import { bundle } from './support/bundle.js';
import { httpSuite } from './support/wire-suite.js';

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
});
