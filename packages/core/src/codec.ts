/**
 * Codecs: values beyond JSON (BigInt, Date, Uint8Array, Map, Set, your own types) in params and
 * results. A codec encodes params and results on the way out and decodes them on the way in; the
 * envelope (`jsonrpc`, `id`, `method`, `error`) is never touched. Give the same codec to the
 * server and the client.
 *
 * @module
 */
import { parseJson, stringifyJson } from './json.js';
import type { JsonRpcNotification, JsonRpcParams, JsonRpcRequest } from './messages.js';
import type { ParsedMessage, ParseResult } from './parse.js';

/**
 * How params and results are turned into JSON and back. Every member is optional: a codec with
 * `read`/`write` changes how text is read and written (`losslessNumbers`), one with
 * `encode`/`decode` changes values; spread two codecs into one to have both. The code a codec
 * needs comes with it, so an app that uses none ships none.
 *
 * @example
 * ```ts
 * const dates: Codec = {
 *   encode: (value) => (value instanceof Date ? { $date: value.toISOString() } : value),
 *   decode: (value) => value,
 * };
 * ```
 */
export interface Codec {
  /**
   * Turns params (client) or a result (server) into what goes on the wire. Params must stay an
   * array or an object.
   */
  readonly encode?: ((value: unknown) => unknown) | undefined;
  /** Turns wire params (server) or a wire result (client) back into values. */
  readonly decode?: ((value: unknown) => unknown) | undefined;
  /**
   * Reads a whole message text instead of `JSON.parse`; throws on text that is not JSON.
   * `losslessNumbers` reads integers beyond 2^53 as `BigInt` with every digit (beyond
   * `MAX_BIGINT_DIGITS` digits, as their text).
   * @default JSON.parse
   */
  readonly read?: ((text: string) => unknown) | undefined;
  /**
   * Writes params or a result (after `encode`) instead of `JSON.stringify`; throws, or returns
   * `undefined`, for a value it cannot write. `losslessNumbers` writes `BigInt` as plain numbers.
   * @default JSON.stringify
   */
  readonly write?: ((value: unknown) => string | undefined) | undefined;
  /**
   * The wire form the codec's `decode` expects, when it can tell it: a server answers params
   * that do not match it (a caller without the codec) with -32602 naming `description`, instead
   * of running the handler on values of the wrong types. A `decode` that throws is answered
   * -32602 the same way.
   * @default none: every value is given to `decode`
   */
  readonly wireForm?: CodecWireForm | undefined;
}

/** What a codec's encoded values look like (see {@link Codec.wireForm}). */
export interface CodecWireForm {
  /** The form, for people: `superjson's {"json": …, "meta": …}`. */
  readonly description: string;
  /**
   * Whether a wire value has the form.
   *
   * @param value - params as received (never `undefined`)
   * @returns `true` when `decode` can take it
   */
  matches(value: unknown): boolean;
}

/** Options of {@link superjsonCodec}. */
export interface SuperjsonCodecOptions {
  /**
   * Whether a server takes params that are not superjson's `{ json, meta }` (from a caller
   * without the codec: curl, another language) as they are. Off, such params are answered
   * -32602 saying they did not decode.
   * @default false
   */
  readonly plainParams?: boolean;
}

/** Whether a value is superjson's `{ json, meta? }` payload. */
function isSuperjsonPayload(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'json' in value;
}

/** superjson's wire form, as a server checks params against it. */
const SUPERJSON_WIRE_FORM: CodecWireForm = /* @__PURE__ */ Object.freeze({
  description: 'superjson\'s {"json": …, "meta": …}',
  matches: isSuperjsonPayload,
});

/**
 * The lossless-number codec: big integers keep every digit in both directions, as plain JSON
 * numbers. An integer a JavaScript number holds exactly stays a `number`; a larger one becomes a
 * `BigInt`; a `BigInt` is written as digits. Reading costs one linear pass over the text.
 *
 * An integer of more than `MAX_BIGINT_DIGITS` (4,300) digits is not converted: turning
 * decimal text into a `BigInt` costs time quadratic in its digits, which untrusted input must not
 * choose. It is read as its exact text, a string (`"1234…"`, with its sign), so no digit is lost;
 * `BigInt(value)` converts it when the application wants to pay for that. Without the codec,
 * `JSON.parse` reads such a number as `Infinity` or a rounded `number`.
 *
 * @example
 * ```ts
 * const server = createServer({ codec: losslessNumbers });
 * server.method('big_add', ([a, b]: [bigint | number, bigint | number]) => BigInt(a) + BigInt(b));
 * ```
 */
export const losslessNumbers: Codec = /* @__PURE__ */ Object.freeze({
  read: (text: string): unknown => parseJson(text, { bigint: true }),
  write: stringifyJson,
});

/** The two functions of superjson (or of a `new SuperJSON()` instance) the adapter uses. */
export interface SuperjsonLike {
  /**
   * Turns a value into JSON and the metadata that restores what JSON cannot hold.
   *
   * @param value - the value
   * @returns the JSON-safe payload
   */
  serialize(value: any): {
    /** The value as plain JSON. */
    json: unknown;
    /** What restores the types JSON lost (Date, BigInt, Map…), when there are any. */
    meta?: unknown;
  };
  /**
   * Restores a value from a payload made by `serialize`.
   *
   * @param payload - the payload
   * @returns the value
   */
  deserialize(payload: any): unknown;
}

/**
 * A codec over superjson: `Date`, `BigInt`, `Map`, `Set`, `RegExp`, `undefined`, `URL`, and types
 * you register with `superjson.registerCustom` (a `Uint8Array`, say). Pass your own superjson so
 * the kit depends on nothing; its version is yours. Params and results travel as superjson's
 * `{ json, meta }`. A server answers params without that shape (from a caller that uses no
 * codec) with -32602 saying they did not decode, unless `plainParams` takes them as they are; a
 * client takes a result without that shape as it is.
 *
 * @param superjson - the `superjson` default export, or a `new SuperJSON()` instance
 * @param options - whether a server takes plain params too
 * @returns the codec
 * @example
 * ```ts
 * import superjson from 'superjson';
 * const server = createServer({ codec: superjsonCodec(superjson) });
 * ```
 */
export function superjsonCodec(superjson: SuperjsonLike, options?: SuperjsonCodecOptions): Codec {
  return Object.freeze({
    encode: (value: unknown) => superjson.serialize(value),
    decode: (value: unknown) => (isSuperjsonPayload(value) ? superjson.deserialize(value) : value),
    wireForm: options?.plainParams === true ? undefined : SUPERJSON_WIRE_FORM,
  });
}

/**
 * Reads JSON text the codec's way: `JSON.parse`, or the codec's reader.
 *
 * @param codec - a codec, or `undefined`
 * @returns a reader, or `undefined` for plain `JSON.parse`
 * @example
 * ```ts
 * const read = jsonReaderOf(losslessNumbers);
 * read?.('[9007199254740993]'); // [9007199254740993n]
 * ```
 */
export function jsonReaderOf(codec: Codec | undefined): ((text: string) => unknown) | undefined {
  return codec?.read;
}

/**
 * Writes a params or result value the codec's way: encoded, then written by `JSON.stringify` or
 * the codec's writer.
 *
 * @param codec - a codec, or `undefined`
 * @returns a writer, or `undefined` for plain `JSON.stringify`
 * @example
 * ```ts
 * jsonWriterOf(losslessNumbers)?.(2n ** 64n); // '18446744073709551616'
 * ```
 */
export function jsonWriterOf(
  codec: Codec | undefined,
): ((value: unknown) => string | undefined) | undefined {
  if (codec === undefined) return undefined;
  const encode = codec.encode;
  if (encode === undefined) return codec.write;
  const write = codec.write ?? JSON.stringify;
  return (value) => write(encode(value));
}

/**
 * A request or notification with its params decoded by a codec's `decode`; the same message when
 * there is no `decode` or no params.
 *
 * @param message - as read
 * @param decode - the codec's `decode`, if any
 * @returns the message the handler sees
 * @example
 * ```ts
 * withDecodedParams({ jsonrpc: '2.0', method: 'm', params: { json: [1] } }, (v) => (v as { json: unknown }).json);
 * // { jsonrpc: '2.0', method: 'm', params: [1] }
 * ```
 */
export function withDecodedParams<M extends JsonRpcRequest | JsonRpcNotification>(
  message: M,
  decode: ((value: unknown) => unknown) | undefined,
): M {
  return decode === undefined || message.params === undefined
    ? message
    : { ...message, params: decode(message.params) as JsonRpcParams };
}

/**
 * Decodes the result of every success in a parse result with a codec's `decode` (errors, ids and
 * everything else are left as they are). O(number of messages) plus the decoding.
 *
 * @param parsed - what `parse` or `parseResponse` returned
 * @param decode - the codec's `decode`
 * @returns the same classification, results decoded
 * @example
 * ```ts
 * const parsed = parse('{"jsonrpc":"2.0","id":1,"result":{"json":1}}');
 * decodeResults(parsed, (value) => (value as { json: unknown }).json);
 * // { kind: 'response', message: { jsonrpc: '2.0', id: 1, result: 1 }, rawId: undefined }
 * ```
 */
export function decodeResults(
  parsed: ParseResult,
  decode: (value: unknown) => unknown,
): ParseResult {
  const one = (member: ParsedMessage): ParsedMessage => {
    if (member.kind !== 'response' || !('result' in member.message)) return member;
    const { id, result } = member.message;
    return {
      kind: 'response',
      message: { jsonrpc: '2.0', id, result: decode(result) },
      rawId: member.rawId,
    };
  };
  return parsed.kind === 'batch'
    ? { kind: 'batch', messages: parsed.messages.map(one) }
    : one(parsed);
}
