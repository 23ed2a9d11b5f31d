/**
 * Response checks, one named rule each, and a response parser from text or bytes. The defaults
 * are strict (they are what `parse` itself demands of a response); each rule can be relaxed on
 * its own for peers that bend the spec, such as one that answers `"error": null` beside `result`.
 *
 * @module
 */
import {
  type Codec,
  ErrorCode,
  type JsonRpc1,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcResponse,
  type ParseResult,
  parse,
} from '@jsonrpc-kit/core';
import {
  classifyErrorCode,
  decodeResults,
  duplicateMemberOf,
  type ParsedInvalid,
  type ParsedMessage,
  parseJson,
} from '@jsonrpc-kit/core/engine';

/**
 * Which error codes an answer may carry: any integer; only the spec's standard range (see
 * `classifyErrorCode`); or the standard and server-reserved ranges plus `min`…`max` (inclusive).
 */
export type ErrorCodePolicy =
  | 'any'
  | 'standard'
  | {
      /** The least custom code accepted. */
      readonly min: number;
      /** The greatest custom code accepted. */
      readonly max: number;
    };

/** The response checks, one rule each. See {@link STRICT_RESPONSE_CHECKS} for the defaults. */
export interface ResponseChecks {
  /** The `jsonrpc` member must be `"2.0"`. */
  readonly requireJsonRpcVersion20: boolean;
  /** The `id` member must be there (off: a missing id reads as `null`). */
  readonly requireIdMember: boolean;
  /** An `id` of `null` is accepted. */
  readonly allowNullId: boolean;
  /** A string `id` is accepted. */
  readonly allowStringId: boolean;
  /** A number `id` is accepted. */
  readonly allowNumericId: boolean;
  /** A number `id` with a fractional part is accepted. */
  readonly allowFractionalId: boolean;
  /**
   * Exactly one of `result` and `error`. Off, a member that is `null` beside the other counts as
   * absent (`"result": 1, "error": null` is a success).
   */
  readonly requireExclusiveResultOrError: boolean;
  /** An `error` member that counts must be an object (off: anything else becomes a -32603). */
  readonly requireErrorObjectWhenPresent: boolean;
  /** The error's `code` must be an integer (off: anything else reads as -32603). */
  readonly requireIntegerErrorCode: boolean;
  /** The error's `message` must be a string (off: anything else is turned into one). */
  readonly requireStringErrorMessage: boolean;
  /** A response must not carry `method` or `params`. */
  readonly rejectRequestFields: boolean;
  /** A response (or its error object) must not repeat a member name; costs a second reader. */
  readonly rejectDuplicateMembers: boolean;
  /** Which error codes are accepted. */
  readonly errorCodePolicy: ErrorCodePolicy;
}

/**
 * The default checks: strict, as `parse` is. Every rule on, every id kind accepted, any integer
 * error code, duplicate member names not looked for (that needs a second reader).
 *
 * @default every `require*`/`reject*` true except rejectDuplicateMembers; every `allow*` true; errorCodePolicy "any"
 * @example
 * ```ts
 * const checks = { ...STRICT_RESPONSE_CHECKS, rejectDuplicateMembers: true };
 * ```
 */
export const STRICT_RESPONSE_CHECKS: ResponseChecks = /* @__PURE__ */ Object.freeze({
  requireJsonRpcVersion20: true,
  requireIdMember: true,
  allowNullId: true,
  allowStringId: true,
  allowNumericId: true,
  allowFractionalId: true,
  requireExclusiveResultOrError: true,
  requireErrorObjectWhenPresent: true,
  requireIntegerErrorCode: true,
  requireStringErrorMessage: true,
  rejectRequestFields: true,
  rejectDuplicateMembers: false,
  errorCodePolicy: 'any',
});

/**
 * What JSON-RPC 1.0 answers need: no `jsonrpc` member, and `result` beside `error` with one of
 * them `null`. Applied on top of the defaults when a client speaks 1.0.
 *
 * @example
 * ```ts
 * parseResponse('{"id":1,"result":2,"error":null}', { checks: JSONRPC1_RESPONSE_CHECKS });
 * ```
 */
export const JSONRPC1_RESPONSE_CHECKS: Partial<ResponseChecks> = /* @__PURE__ */ Object.freeze({
  requireJsonRpcVersion20: false,
  requireExclusiveResultOrError: false,
});

/** What {@link checkResponse} finds: the response, normalized, or the first broken rule. */
export type ResponseVerdict =
  | {
      /** The response keeps every rule. */
      readonly ok: true;
      /** The response, normalized to the 2.0 shape. */
      readonly response: JsonRpcResponse;
    }
  | {
      /** The response breaks a rule. */
      readonly ok: false;
      /** The first rule it breaks, in words. */
      readonly reason: string;
      /**
       * The option of {@link ResponseChecks} that refused it; absent when the response breaks
       * JSON-RPC whatever the options (not an object, neither result nor error).
       */
      readonly rule?: keyof ResponseChecks;
    };

/** A broken rule: what is wrong, and the option that refused it (when one did). */
interface Broken {
  readonly reason: string;
  readonly rule?: keyof ResponseChecks;
}

function bad(reason: string, rule?: keyof ResponseChecks): ResponseVerdict & Broken {
  return rule === undefined ? { ok: false, reason } : { ok: false, reason, rule };
}

function idVerdict(id: unknown, checks: ResponseChecks): Broken | undefined {
  if (id === null)
    return checks.allowNullId ? undefined : bad('a null id (allowNullId is off)', 'allowNullId');
  if (typeof id === 'string') {
    return checks.allowStringId
      ? undefined
      : bad('a string id (allowStringId is off)', 'allowStringId');
  }
  if (typeof id === 'number' || typeof id === 'bigint') {
    if (!checks.allowNumericId) return bad('a number id (allowNumericId is off)', 'allowNumericId');
    if (typeof id === 'number' && !Number.isFinite(id)) {
      return bad('an id that is not a finite number');
    }
    if (typeof id === 'number' && !Number.isInteger(id) && !checks.allowFractionalId) {
      return bad('a fractional id (allowFractionalId is off)', 'allowFractionalId');
    }
    return undefined;
  }
  return bad('an id that is not a string, a number or null');
}

function codeAllowed(code: number, policy: ErrorCodePolicy): boolean {
  if (policy === 'any') return true;
  const range = classifyErrorCode(code);
  if (policy === 'standard') return range === 'standard';
  return range !== 'custom' || (code >= policy.min && code <= policy.max);
}

function errorObjectOf(error: unknown, checks: ResponseChecks): JsonRpcErrorObject | Broken {
  if (typeof error !== 'object' || error === null || Array.isArray(error)) {
    if (checks.requireErrorObjectWhenPresent) {
      return bad('an error member that is not an object', 'requireErrorObjectWhenPresent');
    }
    return { code: ErrorCode.InternalError, message: 'Malformed error', data: error };
  }
  const e = error as Record<string, unknown>;
  let code = e.code;
  if (!Number.isInteger(code)) {
    if (checks.requireIntegerErrorCode) {
      return bad('an error code that is not an integer', 'requireIntegerErrorCode');
    }
    code = ErrorCode.InternalError;
  }
  let message = e.message;
  if (typeof message !== 'string') {
    if (checks.requireStringErrorMessage) {
      return bad('an error message that is not a string', 'requireStringErrorMessage');
    }
    message = message === undefined ? '' : String(message);
  }
  if (!codeAllowed(code as number, checks.errorCodePolicy)) {
    return bad(`error code ${code as number} outside the error-code policy`, 'errorCodePolicy');
  }
  return e.data === undefined
    ? { code: code as number, message: message as string }
    : { code: code as number, message: message as string, data: e.data };
}

/**
 * Checks one parsed value against the response rules.
 *
 * @param value - a parsed JSON value (read by `parseJson` with `duplicates` for that rule)
 * @param checks - the rules
 * @returns the response in the 2.0 shape (`{ jsonrpc, id, result }` or `{ jsonrpc, id, error }`),
 *   or the first rule it breaks
 * @example
 * ```ts
 * checkResponse({ jsonrpc: '2.0', id: 1, result: 2, error: null }, {
 *   ...STRICT_RESPONSE_CHECKS,
 *   requireExclusiveResultOrError: false,
 * }); // { ok: true, response: { jsonrpc: '2.0', id: 1, result: 2 } }
 * ```
 */
export function checkResponse(value: unknown, checks: ResponseChecks): ResponseVerdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return bad('not an object');
  }
  const m = value as Record<string, unknown>;
  if (checks.rejectDuplicateMembers) {
    const name = duplicateMemberOf(m) ?? duplicateMemberOf(m.error);
    if (name !== undefined) return bad(`a repeated member "${name}"`, 'rejectDuplicateMembers');
  }
  if (checks.requireJsonRpcVersion20 && m.jsonrpc !== '2.0') {
    return bad('no "jsonrpc": "2.0"', 'requireJsonRpcVersion20');
  }
  if (checks.rejectRequestFields && ('method' in m || 'params' in m)) {
    return bad('request members (method or params) in a response', 'rejectRequestFields');
  }
  if (!('id' in m) && checks.requireIdMember) return bad('no id member', 'requireIdMember');
  const rawId = 'id' in m ? m.id : null;
  const idProblem = idVerdict(rawId, checks);
  if (idProblem !== undefined) return idProblem as ResponseVerdict;
  const id = (typeof rawId === 'bigint' ? Number(rawId) : rawId) as JsonRpcId;
  let hasResult = 'result' in m;
  let hasError = 'error' in m;
  if (checks.requireExclusiveResultOrError) {
    if (hasResult === hasError) {
      return bad('not exactly one of result and error', 'requireExclusiveResultOrError');
    }
  } else {
    if (hasResult && hasError && m.error === null) hasError = false;
    else if (hasResult && hasError && m.result === null) hasResult = false;
    if (!hasResult && !hasError) return bad('neither result nor error');
    if (hasResult && hasError) return bad('both result and error, neither null');
  }
  if (hasResult) return { ok: true, response: { jsonrpc: '2.0', id, result: m.result } };
  const error = errorObjectOf(m.error, checks);
  if ('reason' in error) return error as ResponseVerdict;
  return { ok: true, response: { jsonrpc: '2.0', id, error } };
}

/** Options of {@link parseResponse}. */
export interface ParseResponseOptions {
  /** Rules to change; the rest stay as {@link STRICT_RESPONSE_CHECKS}. */
  readonly checks?: Partial<ResponseChecks> | undefined;
  /** Reads the text with the codec's reader (big integers, losslessly) and decodes each result. */
  readonly codec?: Codec | undefined;
  /**
   * Core's `jsonrpc1`: apply {@link JSONRPC1_RESPONSE_CHECKS} (and read 1.0 messages) before
   * `checks`.
   */
  readonly jsonrpc1?: JsonRpc1 | undefined;
}

const UTF8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/**
 * The full set of rules for some options.
 *
 * @param options - the changed rules and the 1.0 switch
 * @returns every rule
 * @example
 * ```ts
 * responseChecksOf({ checks: { allowNullId: false } }).allowNullId; // false
 * ```
 */
export function responseChecksOf(options: ParseResponseOptions | undefined): ResponseChecks {
  return {
    ...STRICT_RESPONSE_CHECKS,
    ...(options?.jsonrpc1 === undefined ? undefined : JSONRPC1_RESPONSE_CHECKS),
    ...options?.checks,
  };
}

/**
 * Parses what a peer answered, from text or bytes (UTF-8), checking each response against the
 * rules and decoding its result with the codec. Requests and notifications in it are classified as
 * `parse` does. Never throws.
 *
 * @param input - the answer: text, or UTF-8 bytes (bytes that are not UTF-8 are a -32700)
 * @param options - the rules to change, a codec, JSON-RPC 1.0
 * @returns the classification: responses that break a rule are `invalid` (-32600, `response:
 *   true`) with the rule in the error message
 * @example
 * ```ts
 * const parsed = parseResponse(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":2}'));
 * parsed.kind; // 'response'
 * ```
 */
export function parseResponse(
  input: string | Uint8Array,
  options?: ParseResponseOptions,
): ParseResult {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = UTF8.decode(input);
    } catch {
      text = '\u0000'; // not JSON: parse answers -32700
    }
  }
  const checks = responseChecksOf(options);
  const codec = options?.codec;
  const read = codec?.read;
  // Repeated names are seen by the kit's own reader only (lossless when the codec reads).
  const parsed = parse(text, {
    read: checks.rejectDuplicateMembers
      ? (t) => parseJson(t, { bigint: read !== undefined, duplicates: true })
      : read,
    jsonrpc1: options?.jsonrpc1,
  });
  const one = (member: ParsedMessage): ParsedMessage => {
    let value: unknown;
    if (member.kind === 'response') value = member.message;
    else if (member.kind === 'invalid' && member.response) value = member.value;
    else return member;
    const verdict = checkResponse(value, checks);
    if (!verdict.ok) {
      const invalid: ParsedInvalid = {
        kind: 'invalid',
        error: { code: ErrorCode.InvalidRequest, message: `Invalid response: ${verdict.reason}` },
        id: member.kind === 'response' ? member.message.id : member.id,
        rawId: member.rawId,
        silent: false,
        response: true,
        value,
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
      };
      return invalid;
    }
    return { kind: 'response', message: verdict.response, rawId: member.rawId };
  };
  const checked: ParseResult =
    parsed.kind === 'batch' ? { kind: 'batch', messages: parsed.messages.map(one) } : one(parsed);
  const decode = codec?.decode;
  return decode === undefined ? checked : decodeResults(checked, decode);
}

/**
 * Response checks with the code that applies them: the value of the client's `responseChecks`
 * option (a client that checks nothing beyond the strict default ships none of it).
 */
export interface ResponseChecker {
  /** The rules in force (JSON-RPC 1.0 relaxes two more when the client speaks it). */
  readonly checks: ResponseChecks;
  /**
   * Reads a text as {@link parseResponse} does, with these rules.
   *
   * @param input - text, or UTF-8 bytes
   * @param options - the codec and JSON-RPC 1.0
   * @returns the classification; a response that breaks a rule is `invalid`
   */
  parse(input: string | Uint8Array, options?: Omit<ParseResponseOptions, 'checks'>): ParseResult;
}

/**
 * Makes the response checks a client applies: the strict rules ({@link STRICT_RESPONSE_CHECKS})
 * with the ones given changed.
 *
 * @param checks - the rules to change
 * @returns the checker, for the client's `responseChecks` option
 * @example
 * ```ts
 * // A peer that answers `"error": null` beside `result`:
 * const client = createClient(transport, {
 *   responseChecks: responseChecks({ requireExclusiveResultOrError: false }),
 * });
 * ```
 */
export function responseChecks(checks?: Partial<ResponseChecks>): ResponseChecker {
  return Object.freeze({
    checks: responseChecksOf({ checks }),
    parse: (input: string | Uint8Array, options?: Omit<ParseResponseOptions, 'checks'>) =>
      parseResponse(input, { ...options, checks }),
  });
}
