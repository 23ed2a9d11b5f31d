import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inFreshProcess } from '../../../tests/support/fresh-process.js';

/**
 * Runs `body` in a fresh Node process after a module hook that logs every module URL loaded,
 * with `loaded(part)` telling whether a loaded URL contains `part`. Resolves what it printed.
 */
async function withLoadLog(body: string): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'server-start-up-'));
  const log = join(dir, 'loaded.txt');
  const hooks = `import { appendFileSync } from 'node:fs';
    export async function load(url, context, next) {
      appendFileSync(${JSON.stringify(log)}, url + '\\n');
      return next(url, context);
    }`;
  const script = `
    import { register } from 'node:module';
    import { readFileSync, writeFileSync } from 'node:fs';
    writeFileSync(${JSON.stringify(log)}, '');
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));
    const loaded = (part) => readFileSync(${JSON.stringify(log)}, 'utf8').includes(part);
    ${body}
  `;
  try {
    return await inFreshProcess(script);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('start-up cost', () => {
  it('loads p-limit only when a batch goes async', async () => {
    // Counting work: the modules loaded, in a fresh process that imports the built package.
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const seen = await withLoadLog(`
      const { createServer } = await import(${JSON.stringify(entry)});
      const afterImport = loaded('/p-limit/');
      const server = createServer();
      server.method('now', () => 1);
      server.method('later', async () => 2);
      const sync = await server.handle('[{"jsonrpc":"2.0","id":1,"method":"now"}]');
      const afterSyncBatch = loaded('/p-limit/');
      const async = await server.handle(
        '[{"jsonrpc":"2.0","id":1,"method":"later"},{"jsonrpc":"2.0","id":2,"method":"now"}]',
      );
      const afterAsyncBatch = loaded('/p-limit/');
      console.log(JSON.stringify({ afterImport, afterSyncBatch, afterAsyncBatch, sync, async }));
    `);
    expect(seen).toEqual({
      afterImport: false,
      afterSyncBatch: false,
      afterAsyncBatch: true,
      sync: '[{"jsonrpc":"2.0","id":1,"result":1}]',
      async: '[{"jsonrpc":"2.0","id":1,"result":2},{"jsonrpc":"2.0","id":2,"result":1}]',
    });
  }, 15_000);

  it('reports no unhandled rejection when a member fails while p-limit loads', async () => {
    const batch = new URL('../dist/batch.js', import.meta.url).href;
    const seen = await withLoadLog(`
      const { answerBatch } = await import(${JSON.stringify(batch)});
      const unhandled = [];
      process.on('unhandledRejection', (reason) => unhandled.push(String(reason)));
      const answer = answerBatch([0, 1], undefined, {
        maxBatchSize: 10,
        concurrency: 2,
        answer: (n) => (n === 1 ? Promise.reject(new Error('member failed')) : 'a'),
      });
      const error = await answer.then(() => 'answered', (e) => e.message);
      await new Promise((resolve) => setTimeout(resolve, 20));
      console.log(JSON.stringify({ error, unhandled, loaded: loaded('/p-limit/') }));
    `);
    expect(seen).toEqual({ error: 'member failed', unhandled: [], loaded: true });
  }, 15_000);
});
