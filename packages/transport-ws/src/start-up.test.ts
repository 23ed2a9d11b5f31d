import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinsLoadedBy, inFreshProcess } from '../../../tests/support/fresh-process.js';

/**
 * The start of a fresh-process script: `wsEntry()` counts ws's CommonJS entry (`index.js`, which
 * ws's ESM wrapper never loads) among the modules in Node's CommonJS cache.
 */
const COUNT_WS_ENTRY = `
  import { createRequire } from 'node:module';
  import { join } from 'node:path';
  const wsEntry = () =>
    Object.keys(createRequire(process.cwd() + '/').cache).filter((file) =>
      file.endsWith(join('node_modules', 'ws', 'index.js')),
    ).length;
`;

describe('start-up cost', () => {
  it('loads ws through its CommonJS entry, not its ESM wrapper', async () => {
    // Node 20 scans every CommonJS file that an ES module imports for its export names; ws's ESM
    // wrapper imports five of them, which costs about twice what loading ws costs. Required
    // through its CommonJS entry (`index.js`, which the wrapper never loads), ws is not scanned.
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const script = `${COUNT_WS_ENTRY}
      const { createWebSocketServer } = await import(${JSON.stringify(entry)});
      const loaded = wsEntry();
      const server = { connect: () => ({ closed: Promise.resolve() }) };
      const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
      await wss.ready;
      const listening = wss.port > 0;
      await wss.close();
      console.log(JSON.stringify({ wsEntry: loaded, listening }));
    `;
    expect(await inFreshProcess(script)).toEqual({ wsEntry: 1, listening: true });
  }, 15_000);

  it('loads no Node built-in module that a bare ws server does not', async () => {
    // A bare ws server on node:http, ws imported as an ES module app imports it, starts first;
    // the kit's server then adds no built-in. An ES import of `node:buffer` (for `isUtf8`) made
    // its ES module, which reads every export, and `File` loaded `internal/file`.
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const wsPackage = createRequire(import.meta.url).resolve('ws/package.json');
    const wsImport = pathToFileURL(join(dirname(wsPackage), 'wrapper.mjs')).href;
    const setup = `
      import { createServer } from 'node:http';
      const { WebSocketServer } = await import(${JSON.stringify(wsImport)});
      const http = createServer();
      const bare = new WebSocketServer({ server: http });
      await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
    `;
    const kit = `
      const { createWebSocketServer } = await import(${JSON.stringify(entry)});
      const server = { connect: () => ({ closed: Promise.resolve() }) };
      const wss = createWebSocketServer(server, { port: 0, host: '127.0.0.1' });
      await wss.ready;
      await wss.close();
      bare.close();
      http.close();
    `;
    expect(await builtinsLoadedBy(setup, kit)).toEqual([]);
  }, 15_000);

  it('has the client load ws on Node through its CommonJS entry too', async () => {
    const entry = new URL('../dist/client.js', import.meta.url).href;
    const script = `${COUNT_WS_ENTRY}
      const { createWebSocketTransport } = await import(${JSON.stringify(entry)});
      const before = wsEntry();
      // Nothing listens on port 1: the connection is refused, after ws has loaded.
      const transport = createWebSocketTransport({ url: 'ws://127.0.0.1:1/', reconnect: false });
      const failed = await transport.start({ onMessage() {}, onClose() {} }).then(() => false, () => true);
      console.log(JSON.stringify({ before, after: wsEntry(), failed }));
    `;
    expect(await inFreshProcess(script)).toEqual({ before: 0, after: 1, failed: true });
  }, 15_000);
});
