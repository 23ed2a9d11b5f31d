/**
 * What the incoming runner does with a message the parser found invalid: a request is answered
 * with the parser's error (the server's params-violation code in place of -32602), a notification
 * or an answer is never answered but reported, and an invalid answer to one of the session's own
 * calls fails that call with a `ProtocolError` naming the rule it breaks.
 *
 * @module
 */
import type { RunnerReport } from './call-failures.js';
import { ErrorCode, fromErrorObject, ProtocolError } from './errors.js';
import type { ParsedInvalid } from './parse.js';
import type { ErrorInfo } from './report.js';
import { serializeError } from './serialize.js';
import type { Session } from './session.js';

const INVALID: ErrorInfo = Object.freeze({ kind: 'invalid-message', level: 'warn' });

/** Options of {@link createInvalidHandling}: see `IncomingRunnerOptions`. */
export interface InvalidHandlingOptions {
  /** Where reports go. */
  readonly report: RunnerReport;
  /** The code for params that are neither an array nor an object. @default -32602 */
  readonly paramsViolationCode?: number | undefined;
  /** Whether invalid text that is not an answer is answered (a server) or only reported. @default true */
  readonly answerInvalid?: boolean | undefined;
}

/**
 * Creates the handling of invalid messages of one runner.
 *
 * @param options - the report hook and the server's or the client's policy
 * @returns `(parsed, session, text)`: the answer to send, or `undefined`
 */
export function createInvalidHandling(
  options: InvalidHandlingOptions,
): (
  parsed: ParsedInvalid,
  session: Session | undefined,
  text: string | undefined,
) => string | undefined {
  const { report } = options;
  const paramsViolationCode = options.paramsViolationCode ?? ErrorCode.InvalidParams;
  const answerInvalid = options.answerInvalid !== false;

  /** An answer the response checks refused: rejects the call it names, or is reported. */
  function invalidAnswer(parsed: ParsedInvalid, session: Session): void {
    const { id, value } = parsed;
    const method = id === null ? undefined : session.pending.get(id)?.method;
    // What is wrong, naming the response check that refused it.
    const rule = parsed.rule;
    const message = parsed.error.message;
    const reason = message.startsWith('Invalid response: ') ? message.slice(18) : undefined;
    let what = 'Received an invalid answer';
    if (reason !== undefined) what += `: ${reason}`;
    if (rule !== undefined && reason?.includes(rule) !== true) {
      what += reason === undefined ? `: it breaks ${rule}` : ` (${rule})`;
    }
    if (method !== undefined) {
      const error = new ProtocolError(what, value, { method, id, rule });
      session.reject(id, error);
      report(error, { ...INVALID, method, id }, false);
    } else if (!(id !== null && session.gaveUp(id))) {
      report(new ProtocolError(what, value, { rule }), INVALID, false);
    }
  }

  return (parsed, session, text) => {
    const value = parsed.value;
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    const isRequest = isObject && 'method' in value;
    if (session !== undefined && (parsed.response || (!answerInvalid && !isRequest))) {
      if (parsed.error.code === ErrorCode.ParseError) {
        report(new ProtocolError('Received text that is not JSON', text), INVALID, false);
      } else invalidAnswer(parsed, session);
      return undefined;
    }
    if (!answerInvalid) {
      const method = isRequest ? (value as { method?: unknown }).method : undefined;
      report(
        new ProtocolError('Received an invalid request', value),
        typeof method === 'string' ? { ...INVALID, method } : INVALID,
        parsed.silent,
      );
      return !parsed.silent && isObject && 'id' in value
        ? serializeError(parsed.id, parsed.error, parsed.rawId)
        : undefined;
    }
    if (parsed.silent) {
      const method = isObject ? (value as { method?: unknown }).method : undefined;
      report(
        fromErrorObject(parsed.error),
        typeof method === 'string' ? { ...INVALID, method } : INVALID,
        true,
      );
      return undefined;
    }
    const error =
      parsed.error.code === ErrorCode.InvalidParams &&
      paramsViolationCode !== ErrorCode.InvalidParams
        ? {
            code: paramsViolationCode,
            message: 'Invalid Request: params must be an array or an object',
          }
        : parsed.error;
    return serializeError(parsed.id, error, parsed.rawId);
  };
}
