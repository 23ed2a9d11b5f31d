/**
 * The dispatcher: core's incoming-call runner (one parse result in, the answer out; see
 * `createIncomingRunner`) composed with what is the server's own: how a call is made (`Call`)
 * and run (`run.ts`: limiter, middleware, registry, schemas, deadlines), its policies (codec,
 * JSON-RPC 1.0, error mapping, the params-violation code) and its refusal of batches.
 *
 * @module
 */
import {
  InvalidRequestError,
  jsonrpc1,
  type ParseOptions,
  type ParseResult,
  parse,
  serializeError,
} from '@jsonrpc-kit/core';
import { createIncomingRunner, type SessionAnswer } from '@jsonrpc-kit/core/engine';
import { Call } from './call.js';
import { createRunner } from './run.js';
import type { DispatcherConfig, Scope } from './scope.js';

/** What the dispatcher offers the server. */
export interface Dispatcher {
  /** Answers one parse result: a string, `undefined` (nothing to answer), or a promise of either. */
  answer(parsed: ParseResult, scope: Scope): SessionAnswer;
  /**
   * Parses one text and answers it. A batch over `maxBatchSize` is refused before any member is
   * classified, so its cost is the `JSON.parse` alone.
   */
  answerText(text: string, scope: Scope): SessionAnswer;
  /** Parses one text with the server's limits (a batch over `maxBatchSize` is refused unread). */
  parse(text: string): ParseResult;
}

const BATCHES_REFUSED: string = serializeError(
  null,
  new InvalidRequestError('Invalid Request: this server does not accept batches').toErrorObject(),
);

/**
 * Creates the dispatcher of one server.
 *
 * @param config - the registry, limits and hooks
 * @returns the dispatcher
 */
export function createDispatcher(config: DispatcherConfig): Dispatcher {
  const { report, methods, cancelMethod, policies } = config;

  const run = createRunner({ ...config, decode: policies.decode });
  const runner = createIncomingRunner<Scope, Call>({
    call: (parsed, scope) => {
      const message = parsed.message;
      return new Call(
        parsed.kind === 'request' ? parsed.message.id : undefined,
        message.method,
        message.params,
        scope.transport,
        scope.peer,
        scope.outer,
        parsed.kind === 'request' ? scope.session : undefined,
      );
    },
    run,
    session: (scope) => scope.session,
    report: (error, info, notification) => report(error, { ...info, notification }),
    errorHandler: policies.errorHandler,
    exposeErrorDetails: config.exposeErrorDetails,
    write: policies.write,
    jsonrpc1,
    maxBatchSize: config.maxBatchSize,
    batchConcurrency: config.batchConcurrency,
    paramsViolationCode: policies.paramsViolationCode,
    // Over handle() there is nothing to cancel across exchanges.
    ignoreWithoutSession: (method) => method === cancelMethod && !methods.has(method),
  });

  const batches = policies.batches;
  const parseOptions: ParseOptions = {
    // Refusing batches: any batch is refused unread (its cost is the JSON.parse alone).
    maxBatchSize: batches ? config.maxBatchSize : 0,
    ...policies.parseOptions,
  };
  const answer = (parsed: ParseResult, scope: Scope): SessionAnswer => {
    if (!batches && parsed.kind === 'invalid' && Array.isArray(parsed.value)) {
      return parsed.value.length === 0 ? runner.answer(parsed, scope) : BATCHES_REFUSED;
    }
    return runner.answer(parsed, scope);
  };

  return {
    answer,
    answerText(text, scope) {
      return answer(parse(text, parseOptions), scope);
    },
    parse(text) {
      return parse(text, parseOptions);
    },
  };
}
