/**
 * Robustness: deep nesting, huge members, input that arrives slowly or in pieces, many requests
 * in flight, garbage followed by good requests. The target must answer each as the specification
 * says and keep serving.
 *
 * @module
 */
import {
  type Answered,
  fail,
  judge,
  judgeResponse,
  type Outcome,
  pass,
  readEnvelope,
} from '../check.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { frame } from '../framing.js';
import { pause } from '../pause.js';
import { short } from '../raw-json.js';
import type { StdioConnection } from '../stdio-target.js';
import type { WsConnection } from '../ws-target.js';
import { err, ok, renameMethods, subtractRequest } from './exchange-case.js';

function subtract(ctx: CaseContext, id: string): string {
  return subtractRequest(ctx.config.methods, JSON.stringify(id));
}

/** Room for a big member: a quarter of the body limit, at most 256 KiB. */
function bigSize(ctx: CaseContext): number {
  return Math.min(256 * 1024, Math.floor((ctx.config.maxBodyBytes ?? 4 * 1024 * 1024) / 4));
}

/** Any well-formed answer with this id (or null), then proof that the target still serves. */
async function answeredAndAlive(
  ctx: CaseContext,
  answered: Answered,
  id: string,
): Promise<Outcome> {
  if (answered.trouble !== undefined) return fail(answered.trouble);
  if (answered.messages.length !== 1) return judge(answered, { ids: [id], codes: [] });
  const envelope = readEnvelope(answered.messages[0]!);
  if (typeof envelope === 'string') return fail(envelope);
  if (envelope.rawId !== id && envelope.rawId !== 'null') return fail(`id ${envelope.rawId}`);
  const after = await ctx.exchange(subtract(ctx, 'after'), true);
  const still = judge(after, ok(19, '"after"'));
  if (still.status !== 'pass') return fail(`then: ${still.detail}`);
  return pass(
    envelope.hasResult
      ? `answered with a result, id ${envelope.rawId}`
      : `error ${envelope.code}, id ${envelope.rawId}`,
  );
}

/** Sends `text` in `parts` pieces, `delayMs` apart, over the target's transport; judges 19. */
async function piecewise(
  ctx: CaseContext,
  id: string,
  parts: number,
  delayMs: number,
): Promise<Outcome> {
  const text = subtract(ctx, id);
  const expected = { ids: [JSON.stringify(id)], result: 19 };
  if (ctx.kind === 'http') {
    const bytes = Buffer.from(text, 'utf8');
    const size = Math.ceil(bytes.length / parts);
    const pieces = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    );
    const answer = await ctx.http({ body: pieces, delayMs });
    if (answer.status !== 200) return fail(`status ${answer.status}`);
    return judgeResponse(answer.body, expected);
  }
  if (ctx.kind === 'ws') {
    const ws = (await ctx.duplex()) as WsConnection;
    const size = Math.ceil(text.length / parts);
    const pieces = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
      text.slice(i * size, (i + 1) * size),
    );
    await ws.sendFragments(pieces, delayMs);
    const answer = await ctx.next(ws);
    return answer === undefined ? fail('nothing answered') : judgeResponse(answer.text, expected);
  }
  const connection = (await ctx.duplex()) as StdioConnection;
  const bytes = frame(text, connection.framing);
  const size = Math.ceil(bytes.length / parts);
  for (let i = 0; i * size < bytes.length; i++) {
    if (i > 0 && delayMs > 0) await pause(delayMs);
    connection.write(bytes.subarray(i * size, (i + 1) * size));
  }
  const answer = await ctx.next(connection);
  return answer === undefined ? fail('nothing answered') : judgeResponse(answer.text, expected);
}

/** The robustness cases. */
export const ROBUST_CASES: readonly ConformanceCase[] = [
  {
    id: 'robust.deep-nesting',
    title: 'params nested 100000 deep: answered, and the target keeps serving',
    needs: ['subtract'],
    ambiguity: 'any answer to the nested request is accepted; the target must keep serving',
    async run(ctx) {
      const limit = ctx.config.maxBodyBytes ?? Number.POSITIVE_INFINITY;
      const depth = Math.min(100_000, Math.floor((limit - 200) / 2));
      const text = renameMethods(
        `{"jsonrpc":"2.0","method":"subtract","params":${'['.repeat(depth)}${']'.repeat(depth)},"id":"deep"}`,
        ctx.config.methods,
      );
      return answeredAndAlive(ctx, await ctx.exchange(text, true), '"deep"');
    },
  },
  {
    id: 'robust.huge-member-name',
    title: 'a member name of 256 KiB: answered, and the target keeps serving',
    needs: ['subtract'],
    async run(ctx) {
      const text = renameMethods(
        `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23,"${'k'.repeat(bigSize(ctx))}":1},"id":"huge-name"}`,
        ctx.config.methods,
      );
      return answeredAndAlive(ctx, await ctx.exchange(text, true), '"huge-name"');
    },
  },
  {
    id: 'robust.huge-method',
    title: 'a method name of 256 KiB: -32601, without echoing the name whole',
    async run(ctx) {
      const text = `{"jsonrpc":"2.0","method":"${'m'.repeat(bigSize(ctx))}","id":"huge-method"}`;
      const answered = await ctx.exchange(text, true);
      const outcome = judge(answered, err(-32601, '"huge-method"'));
      if (outcome.status === 'pass' && answered.messages[0]!.length > 64 * 1024) {
        return fail('the error echoes the huge method name');
      }
      return outcome;
    },
  },
  {
    id: 'robust.after-parse-error',
    title: 'after invalid JSON, the next request is answered',
    needs: ['subtract'],
    async run(ctx) {
      const first = judge(await ctx.exchange('{"jsonrpc":', true), err(-32700, 'null'));
      if (first.status !== 'pass') return first;
      return judge(
        await ctx.exchange(subtract(ctx, 'after-garbage'), true),
        ok(19, '"after-garbage"'),
      );
    },
  },
  {
    id: 'robust.slow-input',
    title: 'a request arriving in 4 pieces, 100 ms apart, is answered',
    needs: ['subtract'],
    run: (ctx) => piecewise(ctx, 'slow', 4, 100),
  },
  {
    id: 'robust.split-input',
    title: 'a request arriving in 32 pieces is answered',
    needs: ['subtract'],
    run: (ctx) => piecewise(ctx, 'split', 32, 0),
  },
  {
    id: 'robust.pipelined',
    title: '50 requests sent at once get 50 answers, one per id',
    transports: ['ws', 'stdio'],
    needs: ['subtract'],
    async run(ctx) {
      const connection = await ctx.duplex();
      connection.inbox.drain();
      const ids = new Set(Array.from({ length: 50 }, (_, i) => `p${i}`));
      for (const id of ids) connection.send(subtract(ctx, id));
      const seen = new Set<string>();
      const deadline = Date.now() + ctx.config.timeoutMs * 0.6;
      while (seen.size < ids.size) {
        const message = await ctx.next(connection, Math.max(1, deadline - Date.now()));
        if (message === undefined) return fail(`${seen.size} of 50 answered`);
        const envelope = readEnvelope(message.text);
        if (typeof envelope === 'string') return fail(envelope);
        const id = JSON.parse(envelope.rawId) as unknown;
        if (typeof id !== 'string' || !ids.has(id))
          return fail(`unexpected ${short(message.text, 80)}`);
        if (seen.has(id)) return fail(`${id} answered twice`);
        if (!envelope.hasResult || envelope.result !== 19)
          return fail(`${id}: ${short(message.text, 80)}`);
        seen.add(id);
      }
      return pass('50 answers');
    },
  },
];
