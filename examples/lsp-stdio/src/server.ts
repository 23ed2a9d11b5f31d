#!/usr/bin/env node
/**
 * The language server on stdio with Content-Length framing (as LSP). stdout carries framed
 * messages only; logs go to stderr.
 *
 * @module
 */
import { createStdioTransport } from '@jsonrpc-kit/transport-stdio';
import { createLanguageServer } from './language-server.js';

const log = (line: string): void => {
  process.stderr.write(`[lsp-stdio] ${line}\n`);
};

let exitCode = 1;
const server = createLanguageServer({
  log,
  onExit: (code) => {
    exitCode = code;
    void connection.close();
  },
});
const connection = server.connect(createStdioTransport({ framing: 'content-length' }), {
  kind: 'stdio',
});
connection.closed
  .then(() => server.close())
  .catch((error: unknown) => log(`closing: ${String(error)}`))
  .finally(() => {
    // LSP: exit 0 after shutdown + exit, 1 when the client just went away. Exit explicitly: the
    // client may keep its end of stdin open, which would keep this process alive.
    if (process.stdout.writableLength === 0) process.exit(exitCode);
    process.stdout.once('drain', () => process.exit(exitCode));
  });
