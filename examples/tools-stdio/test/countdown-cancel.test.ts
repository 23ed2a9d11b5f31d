/**
 * A black-box check of the example as outside tools see it: the built bin started with
 * `--http --port 0`, driven with plain HTTP requests. A cancelled `countdown` stops producing
 * progress on every stream of the session, the server keeps serving, and nothing of the tool is
 * left running (the server exits promptly).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer } from '../src/http-demo.js';

const SERVER_JS = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const ACCEPT = 'application/json, text/event-stream';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Reads a response body as it arrives, into `into.text`; resolves when it ends. */
async function collect(response: Response, into: { text: string; ended: boolean }): Promise<void> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      into.text += decoder.decode(value, { stream: true });
    }
  } catch {
    // aborted at the end of the test
  }
  into.ended = true;
}

const progressCount = (text: string): number => text.split('notifications/progress').length - 1;

async function until(what: string, check: () => boolean, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the tools server on Streamable HTTP, black box', () => {
  it('a cancelled countdown stops producing progress, the server keeps serving, nothing is left running', async () => {
    const { url, stop } = await startHttpServer(SERVER_JS);
    let stopped = false;
    cleanups.push(async () => {
      if (!stopped) await stop();
    });
    const aborter = new AbortController();
    cleanups.push(async () => aborter.abort());
    const post = (body: string, session?: string): Promise<Response> =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          ...(session === undefined
            ? {}
            : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
        },
        body,
        signal: aborter.signal,
      });

    const init = await post(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"black-box","version":"1"}}}',
    );
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    await init.text();
    const initialized = await post(
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      session,
    );
    expect(initialized.status).toBe(202);

    // The session's own stream: progress sent after the call ended would land here.
    const get = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
      signal: aborter.signal,
    });
    expect(get.status).toBe(200);
    const pushed = { text: '', ended: false };
    void collect(get, pushed);

    const call = await post(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"countdown","arguments":{"steps":1000,"delayMs":20},"_meta":{"progressToken":"cd"}}}',
      session,
    );
    expect(call.headers.get('content-type')).toBe('text/event-stream');
    const stream = { text: '', ended: false };
    const reading = collect(call, stream);
    await until('three progress events', () => progressCount(stream.text) >= 3);

    const cancelled = await post(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"enough"}}',
      session,
    );
    expect(cancelled.status).toBe(202);
    const atCancel = progressCount(stream.text);
    // The call's stream ends without an answer (MCP answers no cancelled request)…
    await until('the call stream to end', () => stream.ended, 3_000);
    await reading;
    expect(stream.text).not.toContain('"result"');
    // …and over 15 more steps' time no progress appears on any stream (one may have been on its
    // way when the cancellation arrived).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = progressCount(stream.text) + progressCount(pushed.text);
    expect(after - atCancel).toBeLessThanOrEqual(1);
    expect(pushed.text).not.toContain('notifications/progress');

    // The server keeps serving: another call, and a short countdown to its end.
    const add = await post(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}',
      session,
    );
    expect(await add.text()).toContain('"text":"42"');
    const short = await post(
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"countdown","arguments":{"steps":2,"delayMs":5},"_meta":{"progressToken":"again"}}}',
      session,
    );
    const again = await short.text();
    expect(progressCount(again)).toBe(2);
    expect(again).toContain('counted down 2');

    // Nothing of the cancelled countdown is left running (its 997 remaining steps would take
    // 20 s): the server exits promptly on SIGTERM (past 2 s it would be killed).
    aborter.abort();
    const stopping = Date.now();
    stopped = true;
    await stop();
    expect(Date.now() - stopping).toBeLessThan(1_500);
  });
});
