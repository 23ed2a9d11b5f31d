/**
 * stdio rules: frames split anywhere or packed together, lengths in UTF-8 bytes, resynchronisation
 * after garbage, nothing but frames on stdout, exit when stdin ends.
 *
 * @module
 */
import { fail, judgeResponse, type Outcome, pass, readEnvelope } from '../check.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { frame } from '../framing.js';
import { pause } from '../pause.js';
import { short } from '../raw-json.js';
import type { StdioConnection } from '../stdio-target.js';
import { subtractRequest } from './exchange-case.js';

function request(ctx: CaseContext, id: string): string {
  return subtractRequest(ctx.config.methods, JSON.stringify(id));
}

async function stdio(ctx: CaseContext): Promise<StdioConnection> {
  return (await ctx.duplex()) as StdioConnection;
}

/** Waits for the answer to `id`; any other message goes to `others`. */
async function answerTo(
  ctx: CaseContext,
  connection: StdioConnection,
  id: string,
  others: string[],
): Promise<Outcome> {
  const deadline = Date.now() + ctx.config.timeoutMs * 0.6;
  for (;;) {
    const message = await ctx.next(connection, Math.max(1, deadline - Date.now()));
    if (message === undefined) {
      return fail(`no answer${connection.isClosed ? ' (the target exited)' : ''}`);
    }
    const outcome = judgeResponse(message.text, { ids: [JSON.stringify(id)], result: 19 });
    if (outcome.status === 'pass') return outcome;
    others.push(message.text);
  }
}

/** The stdio cases. */
export const STDIO_CASES: readonly ConformanceCase[] = [
  {
    id: 'stdio.split-bytes',
    title: 'a message written one byte at a time is answered',
    transports: ['stdio'],
    needs: ['subtract'],
    async run(ctx) {
      const connection = await stdio(ctx);
      const bytes = frame(request(ctx, 'bytes'), connection.framing);
      for (let i = 0; i < bytes.length; i++) {
        connection.write(bytes.subarray(i, i + 1));
        if (i % 16 === 15) await pause(1);
      }
      return answerTo(ctx, connection, 'bytes', []);
    },
  },
  {
    id: 'stdio.packed',
    title: 'three messages in one write are all answered',
    transports: ['stdio'],
    needs: ['subtract'],
    async run(ctx) {
      const connection = await stdio(ctx);
      const ids = ['packed-1', 'packed-2', 'packed-3'];
      connection.write(Buffer.concat(ids.map((id) => frame(request(ctx, id), connection.framing))));
      for (const id of ids) {
        const outcome = await answerTo(ctx, connection, id, []);
        if (outcome.status !== 'pass') return fail(`${id}: ${outcome.detail}`);
      }
      return pass('3 answers');
    },
  },
  {
    id: 'stdio.utf8',
    title: 'multi-byte characters (lengths count UTF-8 bytes) come back intact',
    transports: ['stdio'],
    needs: ['subtract'],
    async run(ctx) {
      const connection = await stdio(ctx);
      const id = 'é✓😀';
      connection.send(request(ctx, id));
      return answerTo(ctx, connection, id, []);
    },
  },
  {
    id: 'stdio.resync',
    title: 'after garbage, the next good message is answered',
    transports: ['stdio'],
    needs: ['subtract'],
    ambiguity:
      'Content-Length garbage is not a message: silence and -32700 are both accepted (a bad newline-framed line must get -32700)',
    async run(ctx) {
      const connection = await stdio(ctx);
      const newline = connection.framing === 'newline';
      connection.write(
        Buffer.from(
          newline ? 'this is not JSON\n' : 'garbage\r\n\r\nContent-Length: abc\r\n\r\n',
          'latin1',
        ),
      );
      connection.send(request(ctx, 'resync'));
      const others: string[] = [];
      const outcome = await answerTo(ctx, connection, 'resync', others);
      if (outcome.status !== 'pass') return outcome;
      await pause(ctx.config.quietMs);
      others.push(...connection.inbox.drain().map((m) => m.text));
      for (const text of others) {
        const envelope = readEnvelope(text);
        if (typeof envelope === 'string' || envelope.code !== -32700 || envelope.rawId !== 'null') {
          return fail(`unexpected answer to the garbage: ${short(text, 80)}`);
        }
      }
      if (newline && others.length !== 1) {
        return fail(`${others.length} answers to the bad line, expected one -32700`);
      }
      return pass(
        others.length === 0
          ? 'garbage skipped silently, then answered'
          : `garbage answered with ${others.length} × -32700, then answered`,
      );
    },
  },
  {
    id: 'stdio.stdout-clean',
    title: 'stdout carries nothing but well-formed frames',
    transports: ['stdio'],
    async run(ctx) {
      // One more exchange first, so that whatever the target printed has arrived.
      await ctx.alive(await ctx.duplex());
      const garbage = ctx.stdoutGarbage;
      if (garbage.length > 0) {
        return fail(`${garbage.length} bad frame(s) on stdout: ${short(garbage.join(' | '), 100)}`);
      }
      return pass('nothing but frames so far');
    },
  },
  {
    id: 'stdio.exit-on-eof',
    title: 'the target exits when its stdin ends',
    transports: ['stdio'],
    ambiguity:
      'LSP servers exit on an exit notification, MCP servers when stdin closes; any exit code is accepted and printed',
    async run(ctx) {
      const connection = ctx.freshStdio();
      connection.endInput();
      const timeout = ctx.config.timeoutMs * 0.6;
      const code = await Promise.race([connection.exited, pause(timeout).then(() => undefined)]);
      if (code === undefined) return fail(`still running ${timeout} ms after stdin ended`);
      return pass(`exited with ${code}`);
    },
  },
];
