/**
 * The stateless POST path of MCP over HTTP: a checked request runs on its own short connection
 * to the kit server, answered as JSON or, when the server sends progress or log messages first,
 * as an event stream.
 *
 * @module
 */
import type { Transport, TransportContext, TransportHandler } from '@jsonrpc-kit/core';
import type { Answer, Incoming, McpHttpOptions } from './http-api.js';
import { admit, errorBody, refusal, statusOf } from './http-checks.js';
import type { McpServer } from './mcp-server.js';
import { isRecord } from './records.js';

/** A connection that carries one request and its answer. */
function oneShot(
  text: string,
  id: unknown,
): {
  transport: Transport;
  answer: Promise<Answer>;
} {
  let handler: TransportHandler | undefined;
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let settle!: (answer: Answer) => void;
  const answer = new Promise<Answer>((resolve) => {
    settle = resolve;
  });
  let streaming = false;
  async function* events(): AsyncGenerator<string> {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (finished) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  const transport: Transport = {
    async start(h) {
      handler = h;
      queueMicrotask(() => handler?.onMessage(text));
    },
    async send(message) {
      if (finished) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      const final = isRecord(parsed) && !('method' in parsed) && parsed.id === id;
      // A stateless response stream carries no request of the server's own (SEP-2575).
      if (isRecord(parsed) && 'method' in parsed && 'id' in parsed) return;
      if (final && !streaming) {
        finished = true;
        const error = (parsed as { error?: { code?: unknown } }).error;
        const code = typeof error?.code === 'number' ? error.code : undefined;
        settle({ kind: 'json', status: code === undefined ? 200 : statusOf(code), body: message });
        return;
      }
      queue.push(message);
      if (final) finished = true;
      if (!streaming) {
        streaming = true;
        settle({ kind: 'sse', events: events() });
      }
      wake?.();
      wake = undefined;
    },
    async close() {
      if (!finished) {
        finished = true;
        settle({ kind: 'empty', status: 202 });
        wake?.();
      }
    },
  };
  return { transport, answer };
}

/**
 * Answers one stateless POST: authenticates, then serves.
 *
 * @param mcp - the MCP server
 * @param text - the request's body
 * @param incoming - the HTTP request
 * @param options - the endpoint's options
 * @returns the answer
 */
export async function admitted(
  mcp: McpServer,
  text: string,
  incoming: Incoming,
  options: McpHttpOptions,
): Promise<Answer> {
  const admission = await admit(options, incoming);
  if ('kind' in admission) return admission;
  return serve(mcp, text, incoming, admission.auth);
}

async function serve(
  mcp: McpServer,
  text: string,
  incoming: Incoming,
  auth?: unknown,
): Promise<Answer> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'json', status: 400, body: errorBody(null, -32700, 'Parse error') };
  }
  if (!isRecord(message) || typeof message.method !== 'string') {
    return { kind: 'json', status: 400, body: errorBody(null, -32600, 'Invalid Request') };
  }
  const refused = await refusal(mcp, message, incoming);
  if (refused !== undefined) return refused;
  if (!('id' in message)) {
    // A notification (`notifications/cancelled` of a call on another connection): nothing to run.
    return { kind: 'empty', status: 202 };
  }
  const { transport, answer } = oneShot(text, message.id);
  const context: TransportContext = {
    kind: 'http',
    headers: incoming.headers,
    httpMethod: 'POST',
    ...(incoming.signal === undefined ? {} : { signal: incoming.signal }),
    ...(auth === undefined ? {} : { auth }),
  };
  const connection = mcp.server.connect(transport, context);
  incoming.signal?.addEventListener('abort', () => void connection.close(), { once: true });
  const result = await answer;
  if (result.kind !== 'sse') void connection.close();
  else {
    const events = result.events;
    return {
      kind: 'sse',
      events: (async function* () {
        try {
          for await (const event of events) yield event;
        } finally {
          void connection.close();
        }
      })(),
    };
  }
  return result;
}
