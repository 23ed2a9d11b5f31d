/**
 * Reading a call's context (the caller's time left and metadata) when the server's `callContext`
 * option is on: from the params member (`_meta`) and, over HTTP, from the `Jsonrpc-Timeout` and
 * `Jsonrpc-Meta` headers. The call gets `ctx.deadline` and `ctx.meta`; a handler passes them on by
 * giving its `ctx` as the options of the calls it makes (`ctx.peer.request(m, p, ctx)`). Off, none
 * of this runs.
 *
 * @module
 */
import type { CallContext, TransportContext } from '@jsonrpc-kit/core';
import {
  DEFAULT_CONTEXT_MEMBER,
  readCallContext,
  readCallContextHeaders,
} from '@jsonrpc-kit/core/engine';
import type { Call } from './call.js';

/**
 * Options of {@link ServerOptions.callContext}.
 *
 * @example
 * ```ts
 * const options: CallContextOptions = { member: '_meta', headers: true };
 * ```
 */
export interface CallContextOptions {
  /**
   * The params member the context is read from.
   * @default DEFAULT_CONTEXT_MEMBER ("_meta")
   */
  readonly member?: string;
  /**
   * Whether the `Jsonrpc-Timeout` and `Jsonrpc-Meta` headers of an HTTP exchange are read too
   * (for every call of the exchange; the params' context wins for its metadata, the sooner time
   * wins for the deadline).
   * @default true
   */
  readonly headers?: boolean;
}

/**
 * Reads a call's context onto the call. Returns the milliseconds left, or `undefined` when the
 * call carries no time.
 */
export type ContextReader = (call: Call) => number | undefined;

/** An exchange's header context, read once and counted from the first read. */
interface HeaderContext {
  readonly context: CallContext | undefined;
  readonly deadline: number | undefined;
}

/**
 * Makes the reader for the server's `callContext` option.
 *
 * @param option - the option: `true`, its options, or off
 * @returns the reader, or `undefined` when reading is off
 */
export function createContextReader(
  option: boolean | CallContextOptions | undefined,
): ContextReader | undefined {
  if (option === undefined || option === false) return undefined;
  const member = (option === true ? undefined : option.member) ?? DEFAULT_CONTEXT_MEMBER;
  const headers = option === true || option.headers !== false;
  /** Each exchange's headers, read once: its calls share the deadline counted on arrival. */
  const exchanges = new WeakMap<TransportContext, HeaderContext>();

  const fromHeaders = (transport: TransportContext, now: number): HeaderContext | undefined => {
    if (transport.headers === undefined) return undefined;
    let found = exchanges.get(transport);
    if (found === undefined) {
      const context = readCallContextHeaders(transport.headers);
      const timeout = context?.timeout;
      found = { context, deadline: timeout === undefined ? undefined : now + timeout };
      exchanges.set(transport, found);
    }
    return found.context === undefined ? undefined : found;
  };

  return (call) => {
    const now = Date.now();
    const inParams = readCallContext(call.params, member);
    const inHeaders = headers ? fromHeaders(call.transport, now) : undefined;
    if (inParams === undefined && inHeaders === undefined) return undefined;
    let deadline = inHeaders?.deadline;
    const timeout = inParams?.timeout;
    if (timeout !== undefined && (deadline === undefined || now + timeout < deadline)) {
      deadline = now + timeout;
    }
    call.deadline = deadline;
    call.meta = inParams?.meta ?? inHeaders?.context?.meta;
    return deadline === undefined ? undefined : deadline - now;
  };
}
