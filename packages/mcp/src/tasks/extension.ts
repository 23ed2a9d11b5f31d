/**
 * The Tasks extension as a capability: its id, the options of a server that offers it, whether
 * a client declared it, and the errors for a client that did not.
 *
 * @module
 */
import { JsonRpcError } from '@jsonrpc-kit/core';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../stateless.js';
import type { ClientCapabilities } from '../types.js';
import type { TaskStore } from './store.js';

/** The id of the Tasks extension, in `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** Whether a tool can run as a task: `'optional'` (when the client declared the extension) or `'required'` (refused otherwise). */
export type TaskSupport = 'optional' | 'required';

/** Options of the Tasks extension on a server. */
export interface TaskOptions {
  /**
   * Where tasks live. Give every process of a cluster the same shared store.
   *
   * @default an in-memory store of this process ({@link createMemoryTaskStore})
   */
  readonly store?: TaskStore;
  /**
   * Milliseconds a task is kept after its creation (`ttlMs` of the task).
   *
   * @default 3600000 (an hour)
   */
  readonly ttlMs?: number;
  /**
   * The polling interval suggested to clients (`pollIntervalMs`), in milliseconds; also how often
   * a running task looks in the store for answers and cancellations made on other processes.
   *
   * @default 500
   */
  readonly pollIntervalMs?: number;
}

/**
 * Whether capabilities declare the Tasks extension.
 *
 * @param capabilities - a client's capabilities (of `initialize`, or of a request's `_meta`)
 * @returns `true` when `extensions["io.modelcontextprotocol/tasks"]` is there
 */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return (
    typeof extensions === 'object' &&
    extensions !== null &&
    (extensions as Record<string, unknown>)[TASKS_EXTENSION_ID] !== undefined
  );
}

/**
 * The error of a call to a tool that requires a task, from a client without the extension.
 *
 * @param tool - the tool's name
 * @returns the -32021 error naming the extension
 */
export function requiredTaskError(tool: string): JsonRpcError {
  return new JsonRpcError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Tool ${tool} runs as a task: the request must declare the ${TASKS_EXTENSION_ID} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}

/**
 * The error of a `tasks/*` request from a client without the extension.
 *
 * @param method - the request's method
 * @returns the -32021 error naming the extension
 */
export function tasksNotDeclaredError(method: string): JsonRpcError {
  return new JsonRpcError(
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `${method} needs the ${TASKS_EXTENSION_ID} extension`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  );
}
