import { describe, expect, it } from 'vitest';
import { inFreshProcess } from '../../../tests/support/fresh-process.js';

describe('start-up cost', () => {
  it('loads node:http only when listen() is called', async () => {
    // Counting work: the modules Node loaded, in a fresh process that imports the built Node
    // entry (what a client of this package on Node imports too).
    const entry = new URL('../dist/node.js', import.meta.url).href;
    const script = `
      const loaded = () => process.moduleLoadList.includes('NativeModule http');
      const before = loaded();
      const http = await import(${JSON.stringify(entry)});
      const afterImport = loaded();
      const server = { handle: async () => undefined };
      const listener = await http.listen(server);
      const afterListen = loaded();
      await listener.close();
      console.log(JSON.stringify([before, afterImport, afterListen]));
    `;
    expect(await inFreshProcess(script)).toEqual([false, false, true]);
  }, 15_000);
});
