/**
 * Limits the target states: a body of exactly the limit is served, one byte more is refused with
 * the configured code (413 over HTTP); the same for batches.
 *
 * @module
 */
import { fail, judge, judgeResponse, type Outcome, pass, readEnvelope } from '../check.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { short } from '../raw-json.js';
import type { WsConnection } from '../ws-target.js';
import { ok, subtractRequest } from './exchange-case.js';

/** A subtract request padded with spaces to exactly `bytes` UTF-8 bytes. */
function padded(ctx: CaseContext, id: string, bytes: number): string {
  const text = subtractRequest(ctx.config.methods, `"${id}"`);
  const room = bytes - Buffer.byteLength(text);
  return room <= 0 ? text : `${text.slice(0, -1)}${' '.repeat(room)}}`;
}

const noBodyLimit = (config: CaseContext['config']): string | undefined =>
  config.maxBodyBytes === null ? 'maxBodyBytes is not configured' : undefined;
const noBatchLimit = (config: CaseContext['config']): string | undefined =>
  config.maxBatchSize === null ? 'maxBatchSize is not configured' : undefined;

/** A batch of `n` subtract calls, ids 0 to n - 1. */
function subtractBatch(ctx: CaseContext, n: number): string {
  return `[${Array.from({ length: n }, (_, i) => subtractRequest(ctx.config.methods, String(i))).join(',')}]`;
}

/** Checks a refusal: an error with the configured code and id null (or the request's id). */
function refused(text: string, code: number, id: string): Outcome {
  const envelope = readEnvelope(text);
  if (typeof envelope === 'string') return fail(envelope);
  if (envelope.code !== code) return fail(`answered ${short(text, 80)}, expected error ${code}`);
  if (envelope.rawId !== 'null' && envelope.rawId !== `"${id}"`) {
    return fail(`error ${code} with id ${envelope.rawId}`);
  }
  return pass(`error ${code}, id ${envelope.rawId}`);
}

/** The limit cases. */
export const LIMIT_CASES: readonly ConformanceCase[] = [
  {
    id: 'limits.body-at-limit',
    title: 'a request of exactly maxBodyBytes is served',
    needs: ['subtract'],
    skipWhen: noBodyLimit,
    async run(ctx) {
      const text = padded(ctx, 'at-limit', ctx.config.maxBodyBytes!);
      const answered = await ctx.exchange(text, true);
      if (answered.http && answered.http.status !== 200) {
        return fail(`status ${answered.http.status}: ${short(answered.http.body, 60)}`);
      }
      return judge(answered, ok(19, '"at-limit"'));
    },
  },
  {
    id: 'limits.body-over-limit',
    title: 'a request one byte over maxBodyBytes is refused (413 over HTTP)',
    needs: ['subtract'],
    skipWhen: noBodyLimit,
    ambiguity:
      "no size limit in the specification: the target's code (tooLargeCode) is expected; over WebSocket a close with 1009 is accepted too",
    async run(ctx) {
      const { maxBodyBytes, tooLargeCode } = ctx.config;
      const text = padded(ctx, 'over-limit', maxBodyBytes! + 1);
      if (ctx.kind === 'http') {
        const answer = await ctx.http({ body: text });
        if (answer.status !== 413) return fail(`status ${answer.status}, expected 413`);
        if (answer.body.trim() === '') return pass('status 413, no body');
        const outcome = refused(answer.body, tooLargeCode, 'over-limit');
        return outcome.status === 'pass' ? pass(`status 413, ${outcome.detail}`) : outcome;
      }
      if (ctx.kind === 'ws') {
        const ws: WsConnection = await ctx.freshWs();
        ws.send(text);
        const answer = await ctx.next(ws);
        if (answer === undefined) {
          if (!ws.isClosed) return fail('neither answered nor closed');
          const code = await ws.closed;
          return code === 1009 ? pass('closed with 1009') : fail(`closed with ${code}`);
        }
        return refused(answer.text, tooLargeCode, 'over-limit');
      }
      const answered = await ctx.exchange(text, true);
      if (answered.messages.length !== 1 || answered.trouble !== undefined) {
        return judge(answered, { ids: ['null'], codes: [tooLargeCode] });
      }
      return refused(answered.messages[0]!, tooLargeCode, 'over-limit');
    },
  },
  {
    id: 'limits.batch-at-limit',
    title: 'a batch of exactly maxBatchSize is served',
    needs: ['subtract'],
    skipWhen: noBatchLimit,
    async run(ctx) {
      const n = ctx.config.maxBatchSize!;
      const text = subtractBatch(ctx, n);
      const answered = await ctx.exchange(text, true);
      return judge(answered, { batch: Array.from({ length: n }, (_, i) => ok(19, String(i))) });
    },
  },
  {
    id: 'limits.batch-over-limit',
    title: 'a batch one over maxBatchSize gets one error (batchTooLargeCode)',
    needs: ['subtract'],
    skipWhen: noBatchLimit,
    ambiguity:
      "no batch limit in the specification: one error with the target's code (batchTooLargeCode) and id null is expected",
    async run(ctx) {
      const n = ctx.config.maxBatchSize! + 1;
      const text = subtractBatch(ctx, n);
      const answered = await ctx.exchange(text, true);
      if (answered.messages.length !== 1) {
        return judge(answered, { ids: ['null'], codes: [ctx.config.batchTooLargeCode] });
      }
      return judgeResponse(answered.messages[0]!, {
        ids: ['null'],
        codes: [ctx.config.batchTooLargeCode],
      });
    },
  },
];
