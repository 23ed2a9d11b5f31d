/**
 * `client.batch()`: several calls in one message, each settled on its own. The session's
 * `sendBatch` takes the ids, registers the calls, keeps the batch's record and sends it; this
 * builds the members and turns each call's outcome into a settled result.
 *
 * @module
 */
import { isJsonRpcError, LocalError, type RequestOptions } from '@jsonrpc-kit/core';
import { type BatchSent, type Session, sendError } from '@jsonrpc-kit/core/engine';
import type { BatchBuilder, BatchEntry, BatchResult } from './batch.js';
import { batchBuilder } from './batch.js';

/** The methods of the request entries, in order (notifications skipped). */
function requestMethods(entries: readonly BatchEntry<any>[]): string[] {
  const methods: string[] = [];
  for (const entry of entries) if (entry.kind === 'request') methods.push(entry.method);
  return methods;
}

/**
 * Sends one explicit batch.
 *
 * @param session - the client's session
 * @param flushQueue - sends what auto-batching holds first (call order)
 * @param defaultTimeout - the client's default timeout
 * @param build - the caller's builder function
 * @param options - signal and timeout for every request of the batch
 * @returns one settled result per request entry
 */
export function sendBatch(
  session: Session,
  flushQueue: () => void,
  defaultTimeout: number,
  build: (b: BatchBuilder) => readonly BatchEntry<any>[],
  options: RequestOptions | undefined,
): Promise<BatchResult<unknown>[]> {
  let entries: readonly BatchEntry<any>[];
  let sent: BatchSent;
  try {
    entries = build(batchBuilder);
    sent = session.sendBatch(entries, {
      signal: options?.signal,
      timeout: options?.timeout ?? defaultTimeout,
      // Keep call order: whatever auto-batching holds goes first.
      beforeSend: flushQueue,
    });
  } catch (error) {
    return Promise.reject(error);
  }
  if (sent.sent !== undefined) return sent.sent.then(() => []);
  const { calls, ids } = sent;
  const results: Promise<BatchResult<unknown>>[] = [];
  // Made once, by the first failure that must name its call: O(entries) for the whole batch.
  let methods: string[] | undefined;
  for (let i = 0; i < calls.length; i++) {
    results.push(
      calls[i]!.then(
        (value): BatchResult<unknown> => ({ ok: true, value }),
        (error: unknown): BatchResult<unknown> => ({
          ok: false,
          // Kit errors as they are; anything else becomes a TransportError naming the call.
          error:
            isJsonRpcError(error) || error instanceof LocalError
              ? error
              : sendError(error, {
                  method: (methods ??= requestMethods(entries))[i] ?? 'batch',
                  id: ids[i],
                }),
        }),
      ),
    );
  }
  return Promise.all(results);
}
