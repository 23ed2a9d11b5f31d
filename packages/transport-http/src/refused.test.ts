/**
 * A client pointed at a port where nothing listens says why: the `TransportError`'s message names
 * the refusal (`ECONNREFUSED`), not only `fetch failed`.
 */

import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { createClient } from '@jsonrpc-kit/client';
import { TransportError } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createHttpTransport } from './http-transport.js';
import { createStreamableHttpTransport } from './streamable-transport.js';

/** A port on 127.0.0.1 where nothing listens (it listened a moment ago). */
async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function refusal(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error as Error,
  );
}

describe('a refused connection', () => {
  it('Streamable HTTP: the error names ECONNREFUSED', async () => {
    const url = `http://127.0.0.1:${await deadPort()}/mcp`;
    const client = createClient(createStreamableHttpTransport({ url }), { callTimeout: 3000 });
    try {
      const error = await refusal(client.request('initialize', {}));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toMatch(/^HTTP request failed: fetch failed \(.*ECONNREFUSED/);
      expect(error.cause).toBeInstanceOf(Error);
    } finally {
      await client.close();
    }
  });

  it('plain HTTP with fetch: the error names ECONNREFUSED', async () => {
    const url = `http://127.0.0.1:${await deadPort()}/rpc`;
    const client = createClient(createHttpTransport({ url, fetch: globalThis.fetch }), {
      callTimeout: 3000,
    });
    try {
      const error = await refusal(client.request('ping'));
      expect(error).toBeInstanceOf(TransportError);
      expect(error.message).toMatch(/ECONNREFUSED/);
    } finally {
      await client.close();
    }
  });
});
