/**
 * A tiny language-server-style peer: the LSP lifecycle (`initialize`, `initialized`, `shutdown`,
 * `exit`), open documents, hover, diagnostics pushed by the server, a log message, and a slow
 * request that honours `$/cancelRequest`.
 *
 * @module
 */
import {
  InvalidParamsError,
  JsonRpcError,
  type JsonRpcParams,
  lspProfile,
} from '@jsonrpc-kit/core';
import { createServer, type Server } from '@jsonrpc-kit/server';

/** LSP's code for a request before `initialize`. */
export const LSP_SERVER_NOT_INITIALIZED = -32002;

/** Longest `example/slowCount`. */
export const MAX_COUNT = 10_000;

/** LSP `MessageType.Info`. */
const INFO = 3;
/** LSP `DiagnosticSeverity.Warning`. */
const WARNING = 2;

/** What `initialize` answers. */
export const INITIALIZE_RESULT = {
  capabilities: {
    textDocumentSync: 1,
    hoverProvider: true,
    experimental: { slowCount: true },
  },
  serverInfo: { name: 'jsonrpc-kit-lsp-stdio', version: '0.0.0' },
} as const;

/** Options of {@link createLanguageServer}. */
export interface LanguageServerOptions {
  /** Called on the `exit` notification with the exit code LSP prescribes (0 after `shutdown`). */
  readonly onExit?: (code: number) => void;
  /** Where diagnostics of the server itself go (stderr on stdio). */
  readonly log?: (line: string) => void;
}

interface Position {
  readonly line: number;
  readonly character: number;
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidParamsError('Invalid params', [{ path: [], message: 'Expected an object' }]);
  }
  return value as Record<string, unknown>;
}

function uriOf(params: unknown): string {
  const doc = record(record(params).textDocument);
  if (typeof doc.uri !== 'string') {
    throw new InvalidParamsError('Invalid params', [
      { path: ['textDocument', 'uri'], message: 'Expected a string' },
    ]);
  }
  return doc.uri;
}

function wordAt(text: string, { line, character }: Position): string | undefined {
  const row = text.split(/\r?\n/)[line];
  if (row === undefined) return undefined;
  const word = /[\p{L}\p{N}_$]+/gu;
  for (let m = word.exec(row); m !== null; m = word.exec(row)) {
    if (m.index <= character && character <= m.index + m[0].length) return m[0];
  }
  return undefined;
}

function diagnosticsOf(text: string) {
  const diagnostics: object[] = [];
  text.split(/\r?\n/).forEach((row, line) => {
    const at = row.indexOf('TODO');
    if (at !== -1) {
      diagnostics.push({
        range: { start: { line, character: at }, end: { line, character: at + 4 } },
        severity: WARNING,
        source: 'example',
        message: 'TODO left in the text',
      });
    }
  });
  return diagnostics;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Creates the language server.
 *
 * | message | kind | what it does |
 * | --- | --- | --- |
 * | `initialize` | request | answers the capabilities |
 * | `initialized` | notification | the server sends `window/logMessage` |
 * | `textDocument/didOpen`, `didChange`, `didClose` | notifications | keeps the text; pushes `textDocument/publishDiagnostics` (a warning per `TODO`) |
 * | `textDocument/hover` | request | the word under the position |
 * | `example/slowCount` | request | counts to `to`, one step per `delayMs` (reporting `$/progress` when given a `workDoneToken`); `$/cancelRequest` stops it with -32800 |
 * | `example/greeting` | request | asks the client `workspace/configuration` for `example.greeting` and answers it |
 * | `shutdown` / `exit` | request / notification | the LSP lifecycle |
 *
 * @param options - exit hook and logging
 * @returns the server; serve it with Content-Length framing
 * @example
 * ```ts
 * const server = createLanguageServer({ onExit: (code) => process.exit(code) });
 * server.connect(createStdioTransport({ framing: 'content-length' }));
 * ```
 */
export function createLanguageServer(options: LanguageServerOptions = {}): Server {
  const documents = new Map<string, string>();
  let initialized = false;
  let shuttingDown = false;
  const server = createServer({
    profile: lspProfile,
    onError: (error, info) =>
      options.log?.(`error in ${info.method ?? 'a message'}: ${String(error)}`),
  });

  server.use(async (ctx, next) => {
    if (!initialized && ctx.method !== 'initialize' && ctx.method !== 'exit') {
      throw new JsonRpcError(LSP_SERVER_NOT_INITIALIZED, 'Server not initialized');
    }
    if (shuttingDown && ctx.method !== 'exit') {
      throw new JsonRpcError(-32600, 'Server is shutting down');
    }
    return next();
  });

  server.method('initialize', () => {
    initialized = true;
    return INITIALIZE_RESULT;
  });
  server.notification('initialized', async (_params, ctx) => {
    await ctx.peer?.notify('window/logMessage', { type: INFO, message: 'example server ready' });
  });

  const publish = async (
    uri: string,
    peer: { notify: (m: string, p: JsonRpcParams) => Promise<void> } | undefined,
  ) => {
    await peer?.notify('textDocument/publishDiagnostics', {
      uri,
      diagnostics: diagnosticsOf(documents.get(uri) ?? ''),
    });
  };
  server.notification('textDocument/didOpen', async (params: unknown, ctx) => {
    const doc = record(record(params).textDocument);
    const uri = uriOf(params);
    documents.set(uri, typeof doc.text === 'string' ? doc.text : '');
    await publish(uri, ctx.peer);
  });
  server.notification('textDocument/didChange', async (params: unknown, ctx) => {
    const uri = uriOf(params);
    const changes = record(params).contentChanges;
    const last = Array.isArray(changes)
      ? (changes.at(-1) as { text?: unknown } | undefined)
      : undefined;
    if (typeof last?.text === 'string') documents.set(uri, last.text);
    await publish(uri, ctx.peer);
  });
  server.notification('textDocument/didClose', (params: unknown) => {
    documents.delete(uriOf(params));
  });

  server.method('textDocument/hover', (params: unknown) => {
    const uri = uriOf(params);
    const position = record(record(params).position) as unknown as Position;
    if (!Number.isInteger(position.line) || !Number.isInteger(position.character)) {
      throw new InvalidParamsError('Invalid params', [
        { path: ['position'], message: 'Expected { line, character }' },
      ]);
    }
    const text = documents.get(uri);
    const word = text === undefined ? undefined : wordAt(text, position);
    if (word === undefined) return null;
    return { contents: { kind: 'markdown', value: `\`${word}\` (${word.length} characters)` } };
  });

  server.method('example/slowCount', async (params: unknown, ctx) => {
    const p = record(params);
    const to = p.to;
    const step = p.delayMs ?? 10;
    if (typeof to !== 'number' || !Number.isInteger(to) || to < 0 || to > MAX_COUNT) {
      throw new InvalidParamsError('Invalid params', [
        { path: ['to'], message: `Expected an integer from 0 to ${MAX_COUNT}` },
      ]);
    }
    if (typeof step !== 'number' || step < 0 || step > 1_000) {
      throw new InvalidParamsError('Invalid params', [
        { path: ['delayMs'], message: 'Expected 0 to 1000' },
      ]);
    }
    let count = 0;
    while (count < to) {
      await delay(step, ctx.signal);
      count++;
      await ctx.progress?.({ kind: 'report', message: `${count}/${to}` });
    }
    return { count };
  });

  // A call from the server to its client, as LSP servers ask for settings.
  server.method('example/greeting', async (_params: unknown, ctx) => {
    const settings = await ctx.peer?.request<unknown[]>(
      'workspace/configuration',
      { items: [{ section: 'example.greeting' }] },
      { signal: ctx.signal },
    );
    const greeting = Array.isArray(settings) ? settings[0] : undefined;
    return { greeting: typeof greeting === 'string' ? greeting : 'hello' };
  });

  server.method('shutdown', () => {
    shuttingDown = true;
    return null;
  });
  server.notification('exit', () => {
    options.onExit?.(shuttingDown ? 0 : 1);
  });
  return server;
}
