/**
 * Cancellation dialects on duplex connections: LSP's `$/cancelRequest` and MCP's
 * `notifications/cancelled`, each checked only when the target says it speaks it.
 *
 * @module
 */
import { fail, type Outcome, pass, readEnvelope } from '../check.js';
import type { CancellationDialect } from '../config.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { short } from '../raw-json.js';

function dialectCase(
  id: string,
  dialect: CancellationDialect,
  params: (requestId: string) => string,
  answerRequired: boolean,
  ambiguity: string,
): ConformanceCase {
  return {
    id,
    title: `${dialect} stops a running call`,
    transports: ['ws', 'stdio'],
    needs: ['sleep'],
    ambiguity,
    skipWhen: (config) =>
      config.cancellation.includes(dialect) ? undefined : `cancellation does not list ${dialect}`,
    async run(ctx: CaseContext): Promise<Outcome> {
      const connection = await ctx.duplex();
      // The target must be up and reading, so that the call is running when it is cancelled.
      if (!(await ctx.alive(connection))) return fail('the target does not answer');
      connection.inbox.drain();
      const requestId = `${id}-${Date.now()}`;
      // Short enough that a call that was not cancelled answers within the wait below.
      const sleep = Math.round(ctx.config.timeoutMs * 0.2);
      connection.send(
        `{"jsonrpc":"2.0","method":${JSON.stringify(ctx.method('sleep'))},"params":[${sleep}],"id":"${requestId}"}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      connection.send(`{"jsonrpc":"2.0","method":"${dialect}","params":${params(requestId)}}`);
      const waitMs = Math.round(ctx.config.timeoutMs * 0.4);
      const message = await ctx.next(connection, waitMs);
      if (message === undefined) {
        if (answerRequired) {
          return fail(
            `no answer within ${waitMs} ms of the cancellation (40 % of the ${ctx.config.timeoutMs} ms case deadline, --timeout)`,
          );
        }
        if (!(await ctx.alive(connection))) return fail('the target stopped answering');
        return pass('not answered (as MCP asks), and the connection still serves');
      }
      const envelope = readEnvelope(message.text);
      if (typeof envelope === 'string') return fail(envelope);
      if (envelope.rawId !== `"${requestId}"`) return fail(`unexpected ${short(message.text, 80)}`);
      if (envelope.hasResult) return fail('answered with a result: not cancelled');
      return pass(`answered with error ${envelope.code}`);
    },
  };
}

/** The cancellation cases. */
export const CANCEL_CASES: readonly ConformanceCase[] = [
  dialectCase(
    'cancel.cancel-request',
    '$/cancelRequest',
    (requestId) => `{"id":"${requestId}"}`,
    true,
    'LSP wants an error answer (-32800 in LSP, -32001 in the kit); any error code is accepted and printed',
  ),
  dialectCase(
    'cancel.notifications-cancelled',
    'notifications/cancelled',
    (requestId) => `{"requestId":"${requestId}","reason":"conformance"}`,
    false,
    'MCP says a cancelled request gets no answer; silence and an error answer are both accepted',
  ),
];
