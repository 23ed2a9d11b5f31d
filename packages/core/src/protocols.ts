/**
 * Wire protocols for cancellation and progress, as plain data: the kit's default, LSP's and
 * MCP's. A session (the client, a server connection) is given one {@link Profile} and speaks it:
 * it sends and honours that cancel notification, and carries progress with that token and
 * notification.
 *
 * @module
 */
import { ErrorCode } from './errors.js';
import type { JsonRpcId, JsonRpcParams } from './messages.js';

/**
 * How cancellation travels on the wire: the notification the caller sends and the error code the
 * cancelled request is answered with. The profiles below ({@link lspProfile}, {@link mcpProfile}) hold the LSP and MCP ones.
 */
export interface CancellationProtocol {
  /** The notification's method. */
  readonly method: string;
  /** The code a cancelled request is answered with. */
  readonly code: number;
  /**
   * Whether a cancelled request is answered at all. LSP answers it (with `code`); MCP says a
   * cancelled request gets no answer.
   * @default true
   */
  readonly answer?: boolean;
  /**
   * Builds the notification's params.
   *
   * @param id - the id of the request to cancel
   * @param reason - why, when known: `"timeout"`, the abort signal's reason (a string, or an
   *   error's message), or `"aborted"`
   */
  toParams(id: JsonRpcId, reason?: string): JsonRpcParams;
  /**
   * Reads the id of the request to cancel from the notification's params.
   *
   * @param params - the params received
   * @returns the id, or `undefined` when the params name none
   */
  fromParams(params: JsonRpcParams | undefined): JsonRpcId | undefined;
  /**
   * Reads why the caller cancelled, where the notification has a field for it (MCP's
   * `reason`). A handler then finds it in `ctx.signal.reason`: a `RequestCancelledError`
   * (or the profile's code's error) whose message ends with it and whose `data.reason` is it.
   *
   * @param params - the params received
   * @returns the reason, or `undefined` when none was given
   */
  reasonOf?(params: JsonRpcParams | undefined): string | undefined;
}

function idMember(params: JsonRpcParams | undefined, name: string): JsonRpcId | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const id = (params as Record<string, unknown>)[name];
  return typeof id === 'string' || typeof id === 'number' || id === null ? id : undefined;
}

/**
 * The kit's default cancellation: `$/cancelRequest` with `{ "id": … }`, answered with -32001.
 */
export const defaultCancellation: CancellationProtocol = /* @__PURE__ */ Object.freeze({
  method: '$/cancelRequest',
  code: ErrorCode.RequestCancelled,
  toParams: (id: JsonRpcId) => ({ id }),
  fromParams: (params: JsonRpcParams | undefined) => idMember(params, 'id'),
});

/** A progress token: chosen by the caller, echoed in every progress notification. */
export type ProgressToken = string | number;

/**
 * Sends one progress notification to the caller of a running request (`ctx.progress`).
 *
 * @param value - the progress (for MCP: `{ progress, total?, message? }`)
 * @returns when the notification was handed to the transport; a no-op once the call has ended
 */
export type ProgressReporter<V = unknown> = (value: V) => Promise<void>;

/** How progress travels: the token in the request, and the notification that reports it. */
export interface ProgressProtocol<V = unknown> {
  /** The progress notification's method. */
  readonly method: string;
  /**
   * Reads the caller's progress token from a request's params.
   *
   * @param params - the request's params
   * @returns the token, or `undefined` when the caller asked for no progress
   */
  tokenOf(params: unknown): ProgressToken | undefined;
  /**
   * Returns a copy of the params carrying the token.
   *
   * @param params - the params (an object, or `undefined`)
   * @param token - the token
   * @returns the new params
   * @throws TypeError when params are an array (there is no place for a token)
   */
  withToken(params: JsonRpcParams | undefined, token: ProgressToken): JsonRpcParams;
  /**
   * Builds a progress notification's params.
   *
   * @param token - the caller's token
   * @param value - the progress
   * @returns the params
   */
  toParams(token: ProgressToken, value: V): JsonRpcParams;
  /**
   * Reads a progress notification.
   *
   * @param params - the notification's params
   * @returns the token and the progress, or `undefined` when malformed
   */
  fromParams(params: JsonRpcParams | undefined):
    | {
        /** The token of the call the progress is about. */
        token: ProgressToken;
        /** The progress itself. */
        value: V;
      }
    | undefined;
}

/** A protocol profile: cancellation and progress as one protocol family puts them on the wire. */
export interface Profile<V = unknown> {
  /** The profile's name (`"lsp"`, `"mcp"`). */
  readonly name: string;
  /** How a call is cancelled on the wire. */
  readonly cancellation: CancellationProtocol;
  /** Progress tokens and notifications. */
  readonly progress: ProgressProtocol<V>;
}

/** MCP progress: a number that grows, an optional total and message. */
export interface McpProgress {
  /** How far along: grows with each report. */
  readonly progress: number;
  /** The value `progress` reaches at the end, when known. */
  readonly total?: number;
  /** What is happening, for people. */
  readonly message?: string;
}

/**
 * LSP's error code for a cancelled request (`RequestCancelled`).
 * @default -32800
 */
export const LSP_REQUEST_CANCELLED: -32800 = -32800;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isToken(value: unknown): value is ProgressToken {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function objectParams(params: JsonRpcParams | undefined): Record<string, unknown> {
  if (params === undefined) return {};
  if (!isRecord(params)) {
    throw new TypeError(
      'Progress needs params by name (an object): positional params have no place for a token',
    );
  }
  return params;
}

/** LSP's progress: `$/progress` `{ token, value }`, the token in the request's `workDoneToken`. */
const LSP_PROGRESS: ProgressProtocol<unknown> = /* @__PURE__ */ Object.freeze({
  method: '$/progress',
  tokenOf: (params: unknown) => {
    const token = isRecord(params) ? params.workDoneToken : undefined;
    return isToken(token) ? token : undefined;
  },
  withToken: (params: JsonRpcParams | undefined, token: ProgressToken) => ({
    ...objectParams(params),
    workDoneToken: token,
  }),
  toParams: (token: ProgressToken, value: unknown) => ({ token, value }),
  fromParams: (params: JsonRpcParams | undefined) =>
    isRecord(params) && isToken(params.token)
      ? { token: params.token, value: params.value }
      : undefined,
});

/**
 * The Language Server Protocol profile: cancellation with `$/cancelRequest` `{ id }`, answered
 * -32800; progress with `$/progress` `{ token, value }`, the token in the request's
 * `workDoneToken`.
 *
 * @example
 * ```ts
 * const server = createServer({ profile: lspProfile });
 * const client = createClient(transport, { profile: lspProfile, sendCancel: true });
 * ```
 */
export const lspProfile: Profile<unknown> = /* @__PURE__ */ Object.freeze({
  name: 'lsp',
  cancellation: /* @__PURE__ */ Object.freeze({
    method: '$/cancelRequest',
    code: LSP_REQUEST_CANCELLED,
    toParams: (id: JsonRpcId) => ({ id }),
    fromParams: (params: JsonRpcParams | undefined) => idMember(params, 'id'),
  }),
  progress: LSP_PROGRESS,
});

/**
 * The kit's default profile: {@link defaultCancellation} (`$/cancelRequest` `{ id }`, answered
 * -32001) and LSP's progress (`$/progress` `{ token, value }`, the token in `workDoneToken`).
 *
 * @example
 * ```ts
 * const client = createClient(transport, { profile: defaultProfile, sendCancel: true });
 * ```
 */
export const defaultProfile: Profile<unknown> = /* @__PURE__ */ Object.freeze({
  name: 'default',
  cancellation: defaultCancellation,
  progress: LSP_PROGRESS,
});

/**
 * The Model Context Protocol profile: cancellation with `notifications/cancelled`
 * `{ requestId, reason }`; progress with `notifications/progress`
 * `{ progressToken, progress, total?, message? }`, the token in the request's
 * `params._meta.progressToken`. As MCP says, a kit server sends no answer for a cancelled request
 * (`answer: false`): the caller rejects the call locally when it cancels.
 *
 * @example
 * ```ts
 * const server = createServer({ profile: mcpProfile });
 * const client = createClient(transport, { profile: mcpProfile, sendCancel: true });
 * ```
 */
export const mcpProfile: Profile<McpProgress> = /* @__PURE__ */ Object.freeze({
  name: 'mcp',
  cancellation: /* @__PURE__ */ Object.freeze({
    method: 'notifications/cancelled',
    code: -32001,
    answer: false,
    toParams: (id: JsonRpcId, reason?: string) =>
      reason === undefined ? { requestId: id } : { requestId: id, reason },
    fromParams: (params: JsonRpcParams | undefined) => idMember(params, 'requestId'),
    reasonOf: (params: JsonRpcParams | undefined) => {
      const reason = isRecord(params) ? params.reason : undefined;
      return typeof reason === 'string' && reason.length > 0 ? reason : undefined;
    },
  }),
  progress: /* @__PURE__ */ Object.freeze({
    method: 'notifications/progress',
    tokenOf: (params: unknown) => {
      const meta = isRecord(params) ? params._meta : undefined;
      const token = isRecord(meta) ? meta.progressToken : undefined;
      return isToken(token) ? token : undefined;
    },
    withToken: (params: JsonRpcParams | undefined, token: ProgressToken) => {
      const p = objectParams(params);
      return { ...p, _meta: { ...(isRecord(p._meta) ? p._meta : {}), progressToken: token } };
    },
    toParams: (token: ProgressToken, value: McpProgress) => {
      const out: Record<string, unknown> = { progressToken: token, progress: value.progress };
      if (value.total !== undefined) out.total = value.total;
      if (value.message !== undefined) out.message = value.message;
      return out;
    },
    fromParams: (params: JsonRpcParams | undefined) => {
      if (!isRecord(params) || !isToken(params.progressToken)) return undefined;
      if (typeof params.progress !== 'number') return undefined;
      const value: { progress: number; total?: number; message?: string } = {
        progress: params.progress,
      };
      if (typeof params.total === 'number') value.total = params.total;
      if (typeof params.message === 'string') value.message = params.message;
      return { token: params.progressToken, value };
    },
  }),
});
