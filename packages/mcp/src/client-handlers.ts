/**
 * What the MCP client does with what the server sends it: the capabilities its handlers declare,
 * the answers to `ping`, `sampling/createMessage`, `elicitation/create` (with the SEP-1034
 * defaults) and `roots/list`, and the notifications (`list_changed` follow-ups, resource
 * updates, log messages).
 *
 * @module
 */
import { type JsonRpcParams, MethodNotFoundError } from '@jsonrpc-kit/core';
import type { McpClient, McpClientHandlerContext, McpClientOptions } from './client-api.js';
import { type McpAnswer, metaOf } from './client-core.js';
import type { LogMessage } from './client-types.js';
import { isRecord } from './records.js';
import type { ClientCapabilities, CreateMessageParams, ElicitParams } from './types.js';

/**
 * An accepted elicitation's content with the requested schema's defaults for the fields it left
 * out (SEP-1034).
 *
 * @param schema - the `requestedSchema` of `elicitation/create`
 * @param content - what the user gave
 * @returns the content with the defaults filled in
 * @example
 * ```ts
 * applyElicitationDefaults({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }, {});
 * // { n: 3 }
 * ```
 */
export function applyElicitationDefaults(
  schema: Readonly<Record<string, unknown>> | undefined,
  content: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...content };
  const properties = schema?.properties;
  if (!isRecord(properties)) return out;
  for (const [name, property] of Object.entries(properties)) {
    if (out[name] === undefined && isRecord(property) && property.default !== undefined) {
      out[name] = property.default;
    }
  }
  return out;
}

/**
 * The capabilities the client declares: those its handlers imply, with the options' over them.
 *
 * @param options - the client's options
 * @returns the capabilities
 */
export function capabilitiesOf(options: McpClientOptions): ClientCapabilities {
  const handlers = options.handlers ?? {};
  const derived: Record<string, unknown> = {};
  if (handlers.sampling !== undefined) derived.sampling = {};
  if (handlers.elicitation !== undefined) {
    derived.elicitation = options.elicitationUrl === true ? { form: {}, url: {} } : { form: {} };
  }
  if (handlers.roots !== undefined) derived.roots = { listChanged: true };
  return { ...derived, ...options.capabilities };
}

/**
 * The client's answers to the server's requests, from the handlers of its options.
 *
 * @param options - the client's options
 * @returns what answers a server→client request
 */
export function answerOf(options: McpClientOptions): McpAnswer {
  const handlers = options.handlers ?? {};
  /** Answers a server→client request (on the wire, or one of an `input_required` result). */
  const answer = async (
    method: string,
    rawParams: unknown,
    signal: AbortSignal,
  ): Promise<unknown> => {
    const params = (isRecord(rawParams) ? rawParams : {}) as Record<string, unknown>;
    const handlerContext: McpClientHandlerContext = {
      signal,
      meta: metaOf(params as JsonRpcParams),
    };
    switch (method) {
      case 'ping':
        return {};
      case 'sampling/createMessage':
        if (handlers.sampling === undefined) break;
        return handlers.sampling(params as CreateMessageParams, handlerContext);
      case 'elicitation/create': {
        if (handlers.elicitation === undefined) break;
        const elicit = params as ElicitParams;
        const result = await handlers.elicitation(elicit, handlerContext);
        if (
          result.action !== 'accept' ||
          options.applyElicitationDefaults === false ||
          elicit.mode === 'url'
        ) {
          return result;
        }
        return {
          ...result,
          content: applyElicitationDefaults(elicit.requestedSchema, result.content),
        };
      }
      case 'roots/list':
        if (handlers.roots === undefined) break;
        return { roots: await handlers.roots(handlerContext) };
    }
    throw new MethodNotFoundError(`Method not found: ${method}`);
  };
  return answer;
}

/**
 * What the client does with the server's notifications: a changed list is listed again and
 * passed on, a resource update and a log message go to their callbacks, the rest to
 * `onNotification`.
 *
 * @param options - the client's options
 * @param client - the client, to list again with
 * @returns the kit client's notification handler
 */
export function notificationHandlerOf(
  options: McpClientOptions,
  client: () => McpClient,
): (notification: { method: string; params?: JsonRpcParams }) => void {
  const follow = async <T>(kind: string, list: () => Promise<T[]>, to?: (items: T[]) => void) => {
    if (to === undefined) return;
    try {
      to(await list());
    } catch (error) {
      options.client?.onError?.(error instanceof Error ? error : new Error(String(error)), {
        kind: 'notification-failed',
        level: 'error',
        method: `notifications/${kind}/list_changed`,
      });
    }
  };

  const onNotification = (notification: { method: string; params?: JsonRpcParams }): void => {
    const { method, params } = notification;
    const changed = options.onListChanged;
    switch (method) {
      case 'notifications/tools/list_changed':
        void follow('tools', () => client().listAllTools(), changed?.tools);
        break;
      case 'notifications/resources/list_changed':
        void follow('resources', () => client().listAllResources(), changed?.resources);
        break;
      case 'notifications/prompts/list_changed':
        void follow('prompts', () => client().listAllPrompts(), changed?.prompts);
        break;
      case 'notifications/resources/updated':
        if (isRecord(params) && typeof params.uri === 'string')
          options.onResourceUpdated?.(params.uri);
        return;
      case 'notifications/message':
        if (isRecord(params)) options.onLog?.(params as unknown as LogMessage);
        return;
    }
    options.onNotification?.(method, params);
  };
  return onNotification;
}
