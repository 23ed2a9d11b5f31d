/**
 * The dispatcher: one parsed message in, the answer text out (batches are handed to
 * `answerBatch`, which calls back here per member). Synchronous all the way when the handler is:
 * a sync handler's answer is a string, not a promise, so `handle()` and connections pay no
 * promise per step. One request or notification is run in `call-path.ts`; a handler's failure
 * becomes its wire error in `handler-errors.ts`.
 *
 * @module
 */
import {
  ErrorCode,
  fromErrorObject,
  InvalidRequestError,
  type ParseOptions,
  type ParseResult,
  parse,
  serializeError,
} from '@jsonrpc-kit/core';
import type { ParsedInvalid, ParsedMessage, ParsedResponse } from '@jsonrpc-kit/core/engine';
import { type Answer, answerBatch, type BatchOptions } from './batch.js';
import type { Call } from './call.js';
import { createCallPath } from './call-path.js';
import { createHandlerErrors, type HandlerErrors } from './handler-errors.js';
import { createRunner } from './run.js';
import type { DispatcherConfig, Scope } from './scope.js';

/** What the dispatcher offers the server (with its failure handling). */
export interface Dispatcher extends HandlerErrors {
  /** Answers one parse result: a string, `undefined` (nothing to answer), or a promise of either. */
  answer(parsed: ParseResult, scope: Scope): Answer;
  /**
   * Parses one text and answers it. A batch over `maxBatchSize` is refused before any member is
   * classified, so its cost is the `JSON.parse` alone.
   */
  answerText(text: string, scope: Scope): Answer;
  /** Parses one text with the server's limits (a batch over `maxBatchSize` is refused unread). */
  parse(text: string): ParseResult;
  /** Runs one call through middleware, validation and the handler, within the scope's limits. */
  run(call: Call, scope: Scope): unknown;
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
  const { report } = config;
  const { paramsViolationCode } = config.policies;

  const run = createRunner({ ...config, decode: config.policies.decode });
  const errors = createHandlerErrors(config);
  const { errorObject, notificationFailed } = errors;
  const { answerRequest, runNotification } = createCallPath(config, run, errors);

  function answerInvalid(parsed: ParsedInvalid, scope: Scope): string | undefined {
    if (parsed.silent || (parsed.response && scope.session !== undefined)) {
      const value = parsed.value as { method?: unknown } | undefined;
      report(fromErrorObject(parsed.error), {
        kind: 'invalid-message',
        level: 'warn',
        ...(typeof value?.method === 'string' ? { method: value.method } : {}),
        notification: parsed.silent,
      });
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
  }

  function answerResponse(parsed: ParsedResponse, scope: Scope): string | undefined {
    if (scope.session !== undefined) {
      scope.session.respond(parsed.message);
      return undefined;
    }
    // A stateless exchange has no requests of its own to correlate a response with.
    return serializeError(
      parsed.message.id,
      new InvalidRequestError('Invalid Request: a response cannot be answered').toErrorObject(),
      parsed.rawId,
    );
  }

  function answerMessage(parsed: ParsedMessage, scope: Scope): Answer {
    switch (parsed.kind) {
      case 'request':
        return answerRequest(parsed, scope);
      case 'notification':
        return runNotification(parsed, scope);
      case 'response':
        return answerResponse(parsed, scope);
      default:
        return answerInvalid(parsed, scope);
    }
  }

  const batchOptions: BatchOptions<ParsedMessage, Scope> = {
    maxBatchSize: config.maxBatchSize,
    concurrency: config.batchConcurrency,
    answer: answerMessage,
  };

  const batches = config.policies.batches;
  const parseOptions: ParseOptions = {
    // Refusing batches: any batch is refused unread (its cost is the JSON.parse alone).
    maxBatchSize: batches ? config.maxBatchSize : 0,
    ...config.policies.parseOptions,
  };
  const answer = (parsed: ParseResult, scope: Scope): Answer => {
    if (parsed.kind === 'batch') return answerBatch(parsed.messages, scope, batchOptions);
    if (!batches && parsed.kind === 'invalid' && Array.isArray(parsed.value)) {
      return parsed.value.length === 0 ? answerMessage(parsed, scope) : BATCHES_REFUSED;
    }
    return answerMessage(parsed, scope);
  };

  return {
    answer,
    answerText(text, scope) {
      return answer(parse(text, parseOptions), scope);
    },
    parse(text) {
      return parse(text, parseOptions);
    },
    run,
    errorObject,
    notificationFailed,
  };
}
