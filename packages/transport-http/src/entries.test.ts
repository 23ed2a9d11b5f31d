import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as universal from './index.js';
import * as node from './node.js';

/** Every module the given source file reaches through relative imports. */
function graph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(new URL(file, import.meta.url), 'utf8');
  for (const match of text.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
    const spec = match[1]!;
    if (spec.startsWith('./')) graph(spec.replace(/\.js$/, '.ts'), seen);
    else seen.add(spec);
  }
  return seen;
}

describe('entry points', () => {
  it('the default entry reaches no node: module and no undici', () => {
    const reached = [...graph('./index.ts')];
    expect(reached.filter((m) => m.startsWith('node:') || m === 'undici')).toEqual([]);
    expect(reached).toContain('./fetch-handler.ts');
    expect(reached).toContain('./streamable-handler.ts');
    expect(reached).toContain('./streamable-transport.ts');
  });

  it('the default entry exports the fetch handler and the fetch transport', () => {
    expect(Object.keys(universal).sort()).toEqual(
      [
        'ANSWER_RELAY_TOPIC',
        'DEFAULT_BODY_TIMEOUT',
        'DEFAULT_CORS_MAX_AGE',
        'DEFAULT_HTTP_ERROR_CODE',
        'DEFAULT_HTTP_TIMEOUT',
        'DEFAULT_EVENT_STORE_MAX_AGE',
        'DEFAULT_EVENT_STORE_MAX_BYTES',
        'DEFAULT_EVENT_STORE_MAX_EVENTS',
        'DEFAULT_EVENT_STORE_MAX_STREAM_BYTES',
        'DEFAULT_KEEP_ALIVE_INTERVAL',
        'DEFAULT_MAX_BUFFERED_BYTES',
        'DEFAULT_MAX_BUFFERED_EVENTS',
        'DEFAULT_MAX_SESSIONS',
        'DEFAULT_MAX_SESSIONS_PER_CLIENT',
        'DEFAULT_PUSH_METHODS',
        'DEFAULT_SESSION_IDLE_TIMEOUT',
        'DEFAULT_STREAMABLE_RECONNECT',
        'MCP_PROTOCOL_VERSIONS',
        'SESSIONS_FULL_RETRY_AFTER',
        'DISCARD_BYTES',
        'DISCARD_TIMEOUT',
        'HttpError',
        'createFetchHandler',
        'createHttpTransport',
        'createMemoryEventStore',
        'createMemorySessionStore',
        'createSseParser',
        'createStreamableHttpHandler',
        'createStreamableHttpTransport',
        'encodeSseEvent',
        'defaultStatus',
        'isJsonContentType',
      ].sort(),
    );
  });

  it('the node entry adds the node:http handler, listen and the undici transport', () => {
    for (const name of Object.keys(universal)) expect(node).toHaveProperty(name);
    expect(typeof node.createHttpHandler).toBe('function');
    expect(typeof node.listen).toBe('function');
    expect(typeof node.createStreamableHttpNodeHandler).toBe('function');
    expect(node.createHttpTransport).not.toBe(universal.createHttpTransport);
  });

  it('the package name resolves to the node entry on Node', async () => {
    const byName = await import('@jsonrpc-kit/transport-http');
    expect(byName).toHaveProperty('createHttpHandler');
    const explicit = await import('@jsonrpc-kit/transport-http/node');
    expect(explicit.listen).toBe(byName.listen);
  });
});
