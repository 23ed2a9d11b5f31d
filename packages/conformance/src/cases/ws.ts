/**
 * WebSocket rules: answers in text frames, what a binary frame gets, close codes, fragmented
 * messages.
 *
 * @module
 */
import { fail, judgeResponse, pass } from '../check.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { subtractRequest } from './exchange-case.js';

const request = (ctx: CaseContext, id: string): string =>
  subtractRequest(ctx.config.methods, JSON.stringify(id));

/** The WebSocket cases. */
export const WS_CASES: readonly ConformanceCase[] = [
  {
    id: 'ws.text-frames',
    title: 'answers come in text frames',
    transports: ['ws'],
    needs: ['subtract'],
    async run(ctx) {
      const ws = await ctx.freshWs();
      ws.send(request(ctx, 'text'));
      const answer = await ctx.next(ws);
      if (answer === undefined) return fail('nothing answered');
      if (answer.binary) return fail('answered in a binary frame');
      return judgeResponse(answer.text, { ids: ['"text"'], result: 19 });
    },
  },
  {
    id: 'ws.binary-frame',
    title: 'a request in a binary frame: answered in text, or closed with 1003',
    transports: ['ws'],
    needs: ['subtract'],
    ambiguity:
      'no standard for binary frames: an answer (in a text frame) and a close with 1003 are both accepted',
    async run(ctx) {
      const ws = await ctx.freshWs();
      ws.sendBinary(Buffer.from(request(ctx, 'binary'), 'utf8'));
      const answer = await ctx.next(ws);
      if (answer === undefined) {
        if (!ws.isClosed) return fail('neither answered nor closed');
        const code = await ws.closed;
        return code === 1003 ? pass('closed with 1003') : fail(`closed with ${code}, not 1003`);
      }
      if (answer.binary) return fail('answered in a binary frame');
      const outcome = judgeResponse(answer.text, { ids: ['"binary"'], result: 19 });
      return outcome.status === 'pass'
        ? pass(`answered in a text frame: ${outcome.detail}`)
        : outcome;
    },
  },
  {
    id: 'ws.invalid-utf8',
    title: 'a text frame that is not UTF-8: closed with 1007',
    transports: ['ws'],
    async run(ctx) {
      const ws = await ctx.freshWs();
      ws.sendRawText(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
      const answer = await ctx.next(ws);
      if (answer !== undefined) return fail(`answered instead of closing: ${answer.text}`);
      if (!ws.isClosed) return fail('not closed');
      const code = await ws.closed;
      return code === 1007 ? pass('closed with 1007') : fail(`closed with ${code}, expected 1007`);
    },
  },
  {
    id: 'ws.close',
    title: 'a close with 1000 is answered with 1000',
    transports: ['ws'],
    async run(ctx) {
      const ws = await ctx.freshWs();
      const code = await ws.close(1000, ctx.config.timeoutMs / 2);
      return code === 1000 ? pass('closed with 1000') : fail(`closed with ${code}`);
    },
  },
  {
    id: 'ws.fragmented',
    title: 'a message in three fragments is answered',
    transports: ['ws'],
    needs: ['subtract'],
    async run(ctx) {
      const ws = await ctx.freshWs();
      const text = request(ctx, 'fragments');
      const third = Math.ceil(text.length / 3);
      await ws.sendFragments(
        [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)],
        20,
      );
      const answer = await ctx.next(ws);
      if (answer === undefined) return fail('nothing answered');
      return judgeResponse(answer.text, { ids: ['"fragments"'], result: 19 });
    },
  },
];
