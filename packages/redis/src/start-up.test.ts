import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinsLoadedBy } from '../../../tests/support/fresh-process.js';

describe('start-up cost', () => {
  it('loads no Node built-in module that @redis/client does not', async () => {
    // An ES import of `node:crypto` (for `randomUUID`) made its ES module, which reads every
    // export, and `webcrypto` loaded `internal/crypto/webcrypto` when the package was imported.
    const require = createRequire(import.meta.url);
    const client = pathToFileURL(require.resolve('@redis/client')).href;
    const core = new URL('../../core/dist/index.js', import.meta.url).href;
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const setup = `
      await import(${JSON.stringify(core)});
      await import(${JSON.stringify(client)});
    `;
    expect(await builtinsLoadedBy(setup, `await import(${JSON.stringify(entry)});`)).toEqual([]);
  }, 15_000);
});
