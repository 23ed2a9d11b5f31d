/**
 * The MCP client's requests and their multi-round-trip requests (MRTR, 2026-07-28): the call's
 * `_meta` added, and an `input_required` result answered with the client's handlers and sent
 * again, up to {@link MAX_INPUT_ROUNDS} rounds.
 *
 * @module
 */
import type { Client } from '@jsonrpc-kit/client';
import { type JsonRpcParams, type McpProgress, ProtocolError } from '@jsonrpc-kit/core';
import { MAX_INPUT_ROUNDS, type McpCallOptions } from './client-api.js';
import type { McpAnswer, McpClientCore } from './client-core.js';
import { isRecord } from './records.js';

/**
 * The client's `call`: a request with the call's options, whose `input_required` results are
 * answered and sent again with the server's `requestState` as it was given.
 *
 * @param rpc - the kit client underneath
 * @param answer - answers the server's input requests
 * @returns the call
 */
export function callOf(rpc: Client<McpProgress>, answer: McpAnswer): McpClientCore['call'] {
  const call = async <T>(
    method: string,
    params: Record<string, unknown> | undefined,
    callOptions: McpCallOptions | undefined,
  ): Promise<T> => {
    let p = params;
    if (callOptions?.meta !== undefined) {
      p = { ...p, _meta: { ...(isRecord(p?._meta) ? p._meta : {}), ...callOptions.meta } };
    }
    const requestOptions = {
      signal: callOptions?.signal,
      timeout: callOptions?.timeout,
      onProgress: callOptions?.onProgress,
      resetTimeoutOnProgress: callOptions?.resetTimeoutOnProgress,
    };
    // MRTR (2026-07-28): an `input_required` result asks for answers (elicitation, sampling,
    // roots) the request is sent again with, with the server's `requestState` as it was given.
    for (let round = 0; ; round++) {
      const result = await rpc.request<T>(method, p as JsonRpcParams | undefined, requestOptions);
      if (!isRecord(result) || result.resultType !== 'input_required') return result;
      if (round >= MAX_INPUT_ROUNDS) {
        throw new ProtocolError(
          `${method}: more than ${MAX_INPUT_ROUNDS} input_required rounds`,
          result,
        );
      }
      const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
      const signal = callOptions?.signal ?? new AbortController().signal;
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (!isRecord(request) || typeof request.method !== 'string') continue;
        inputResponses[key] = await answer(request.method, request.params, signal);
      }
      const { inputResponses: _responses, requestState: _state, ...rest } = p ?? {};
      p = { ...rest, inputResponses };
      if (result.requestState !== undefined) p.requestState = result.requestState;
    }
  };
  return call;
}
