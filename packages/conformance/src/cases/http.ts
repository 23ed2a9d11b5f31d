/**
 * HTTP status policy: 200 for every answer (errors included), 204 or 202 with an empty body when
 * nothing is answered, 405 with `Allow` for GET.
 *
 * @module
 */
import { fail, judgeResponse, pass } from '../check.js';
import type { ConformanceCase } from '../context.js';
import { short } from '../raw-json.js';
import { renameMethods } from './exchange-case.js';

const STATUS_POLICY =
  'the specification says nothing about HTTP; checked: the common policy (200 for every answer, 204 or 202 for none, 405 for GET)';

function statusCase(
  id: string,
  title: string,
  request: string,
  expectAnswer: boolean,
  needs?: ConformanceCase['needs'],
): ConformanceCase {
  return {
    id,
    title,
    transports: ['http'],
    ambiguity: STATUS_POLICY,
    ...(needs ? { needs } : {}),
    async run(ctx) {
      const answer = await ctx.http({ body: renameMethods(request, ctx.config.methods) });
      const body = answer.body;
      if (!expectAnswer) {
        if (answer.status !== 204 && answer.status !== 202) {
          return fail(
            `status ${answer.status}, expected 204 or 202${body ? `: ${short(body, 60)}` : ''}`,
          );
        }
        if (body !== '') return fail(`status ${answer.status} with a body: ${short(body, 60)}`);
        return pass(`status ${answer.status}, no body`);
      }
      if (answer.status !== 200)
        return fail(`status ${answer.status}, expected 200: ${short(body, 60)}`);
      const type = answer.headers['content-type'] ?? '';
      if (!/^application\/json\b/i.test(type)) {
        return fail(`content-type "${type}", expected application/json`);
      }
      if (body.trim() === '') return fail('status 200 without a body');
      return pass(`status 200, ${type}`);
    },
  };
}

/** The HTTP cases. */
export const HTTP_CASES: readonly ConformanceCase[] = [
  statusCase(
    'http.status-result',
    'a result: 200, application/json',
    '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}',
    true,
    ['subtract'],
  ),
  statusCase(
    'http.status-error',
    'an error answer: 200, application/json',
    '{"jsonrpc":"2.0","method":"foobar","id":1}',
    true,
    ['foobar'],
  ),
  statusCase(
    'http.status-parse-error',
    'a parse error: 200, application/json',
    '{"jsonrpc":',
    true,
  ),
  statusCase(
    'http.status-notification',
    'a notification: 204 or 202, no body',
    '{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}',
    false,
    ['update'],
  ),
  statusCase(
    'http.status-notification-batch',
    'a batch of notifications: 204 or 202, no body',
    '[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]',
    false,
    ['notify_sum', 'notify_hello'],
  ),
  {
    id: 'http.get',
    title: 'GET: 405 with Allow: POST',
    transports: ['http'],
    ambiguity: STATUS_POLICY,
    async run(ctx) {
      const answer = await ctx.http({ method: 'GET', headers: {} });
      const allow = String(answer.headers.allow ?? '');
      if (answer.status !== 405) return fail(`status ${answer.status}, expected 405`);
      if (!/\bPOST\b/i.test(allow)) return fail(`status 405, Allow "${allow}" without POST`);
      return pass(`status 405, Allow: ${allow}`);
    },
  },
  {
    id: 'http.charset',
    title: 'a request with "content-type: application/json; charset=utf-8" is served',
    transports: ['http'],
    needs: ['subtract'],
    async run(ctx) {
      const answer = await ctx.http({
        body: renameMethods(
          '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"ü"}',
          ctx.config.methods,
        ),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      if (answer.status !== 200) return fail(`status ${answer.status}: ${short(answer.body, 60)}`);
      return judgeResponse(answer.body, { ids: ['"ü"'], result: 19 });
    },
  },
];
