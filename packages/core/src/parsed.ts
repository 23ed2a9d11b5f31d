/**
 * What `parse` gives: one classified message (a request, a notification, a response, or an
 * invalid message with the error to answer), or a batch of them; and the shape of the JSON-RPC 1.0
 * reader and writer (core's `jsonrpc1`) that `parse` and the endpoints may be handed.
 *
 * @module
 */
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from './messages.js';

/** A valid request: answer it with `message.id` (or `rawId`, when set). */
export interface ParsedRequest {
  /** Tells the variants apart. */
  readonly kind: 'request';
  /** The request, as sent. */
  readonly message: JsonRpcRequest;
  /**
   * The id's exact source text when a JavaScript number cannot hold it exactly (an integer
   * beyond 2^53, a long fraction); `undefined` otherwise. Serializers echo it verbatim.
   */
  readonly rawId: string | undefined;
  /** `true` for a JSON-RPC 1.0 request (read with `jsonrpc1`): answer it in 1.0 form. */
  readonly jsonrpc1?: true;
}

/** A valid notification: never answered. */
export interface ParsedNotification {
  /** Tells the variants apart. */
  readonly kind: 'notification';
  /** The notification, as sent. */
  readonly message: JsonRpcNotification;
}

/** A valid response (success or error). */
export interface ParsedResponse {
  /** Tells the variants apart. */
  readonly kind: 'response';
  /** The response, as sent. */
  readonly message: JsonRpcResponse;
  /** As {@link ParsedRequest.rawId}. */
  readonly rawId: string | undefined;
}

/** Something that is not a valid message, with the error to answer and the id to answer with. */
export interface ParsedInvalid {
  /** Tells the variants apart. */
  readonly kind: 'invalid';
  /**
   * The error to answer with: -32700, -32600, -32602 for params that are not structured, or -32003
   * for a batch over the length limit.
   */
  readonly error: JsonRpcErrorObject;
  /** The id to answer with: the message's id where it is valid, else `null`. */
  readonly id: JsonRpcId;
  /** As {@link ParsedRequest.rawId}. */
  readonly rawId: string | undefined;
  /**
   * `true` when nothing should be answered: a notification (no `id` member) whose only fault is
   * its params. Report it; do not answer it.
   */
  readonly silent: boolean;
  /** `true` when the value looked like a response (no `method`; a `result` or `error` member). */
  readonly response: boolean;
  /** The parsed value (`undefined` when the text was not JSON). */
  readonly value: unknown;
  /**
   * For a response refused by the client's response checks: the option that refused it
   * (`requireExclusiveResultOrError`, say).
   */
  readonly rule?: string;
}

/** One classified message. */
export type ParsedMessage = ParsedRequest | ParsedNotification | ParsedResponse | ParsedInvalid;

/** A non-empty batch, classified member by member, in order. */
export interface ParsedBatch {
  /** Tells the variants apart. */
  readonly kind: 'batch';
  /** Each member of the batch, classified on its own, in order. */
  readonly messages: readonly ParsedMessage[];
}

/** What `parse` returns: one message, a batch, or an invalid message. */
export type ParseResult = ParsedMessage | ParsedBatch;

/**
 * JSON-RPC 1.0 as a value: how it is read and written. Pass core's {@link jsonrpc1} where an
 * option takes it (`parse`, `parseResponse`, the client's `jsonrpc1`); the code comes with the
 * value, so what never uses 1.0 ships none of it.
 */
export interface JsonRpc1 {
  /**
   * Reads a message that has no `jsonrpc` member.
   *
   * @param message - the message
   * @param id - its id, as `parse` read it
   * @param rawId - the id's source text
   * @param idOk - whether the id member is there and valid
   * @param idValid - whether the id, if any, is valid
   * @returns the classification, or `undefined` when it is not 1.0 either
   */
  classify(
    message: Record<string, unknown>,
    id: JsonRpcId,
    rawId: string | undefined,
    idOk: boolean,
    idValid: boolean,
  ): ParsedMessage | undefined;
  /** Writes a request (`serializeRequest1`: params by position only, or a `TypeError`). */
  serializeRequest(
    id: JsonRpcId,
    method: string,
    params: readonly unknown[] | undefined,
    write?: (value: unknown) => string | undefined,
  ): string;
  /** Writes a notification (`serializeNotification1`: `id: null`). */
  serializeNotification(
    method: string,
    params: readonly unknown[] | undefined,
    write?: (value: unknown) => string | undefined,
  ): string;
  /** Writes a success answer (`serializeSuccess1`: `"error": null` beside `result`). */
  serializeSuccess(
    id: JsonRpcId,
    result: unknown,
    rawId?: string,
    write?: (value: unknown) => string | undefined,
  ): string;
  /** Writes an error answer (`serializeError1`: `"result": null` beside `error`). */
  serializeError(id: JsonRpcId, error: JsonRpcErrorObject, rawId?: string): string;
}
