/**
 * `client.batch()`: several calls in one message, each settled on its own.
 *
 * @module
 */
import {
  AbortError,
  ConnectionClosedError,
  isJsonRpcError,
  type JsonRpcId,
  type JsonRpcParams,
  LocalError,
  type RequestOptions,
} from '@jsonrpc-kit/core';
import { type Session, sendError } from '@jsonrpc-kit/core/engine';
import type { BatchBuilder, BatchEntry, BatchResult } from './batch.js';
import { batchBuilder } from './batch.js';
import type { Exchanges } from './exchanges.js';

/** How the client writes its calls (codec, JSON-RPC 1.0, local checks). */
export interface CallWriters {
  request(id: JsonRpcId, method: string, params: JsonRpcParams | undefined): string;
  notification(method: string, params: JsonRpcParams | undefined): string;
}

/**
 * Sends one explicit batch.
 *
 * @param session - the client's session
 * @param exchanges - the client's exchanges
 * @param write - writes each member
 * @param flushQueue - sends what auto-batching holds first (call order)
 * @param defaultTimeout - the client's default timeout
 * @param build - the caller's builder function
 * @param options - signal and timeout for every request of the batch
 * @returns one settled result per request entry
 */
export function sendBatch(
  session: Session,
  exchanges: Exchanges,
  write: CallWriters,
  flushQueue: () => void,
  defaultTimeout: number,
  build: (b: BatchBuilder) => readonly BatchEntry<any>[],
  options: RequestOptions | undefined,
): Promise<BatchResult<unknown>[]> {
  let entries: readonly BatchEntry<any>[];
  try {
    entries = build(batchBuilder);
  } catch (error) {
    return Promise.reject(error);
  }
  if (session.isClosed) {
    return Promise.reject(
      new ConnectionClosedError(undefined, { method: entries[0]?.method ?? 'batch' }),
    );
  }
  if (entries.length === 0) return Promise.resolve([]);
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(new AbortError({ cause: signal.reason }));
  const timeout = options?.timeout ?? defaultTimeout;
  const canGiveUp = signal !== undefined || (timeout > 0 && timeout < Number.POSITIVE_INFINITY);
  const texts: string[] = [];
  const exchange = exchanges.create(undefined);
  try {
    for (const entry of entries) {
      if (entry.kind === 'notification') {
        texts.push(write.notification(entry.method, entry.params));
      } else {
        const id = session.nextId();
        texts.push(write.request(id, entry.method, entry.params));
        exchange.ids.push(id);
        exchange.methods.push(entry.method);
      }
    }
  } catch (error) {
    return Promise.reject(error);
  }
  const { ids, methods } = exchange;
  const pending = session.pending;
  const promises: Promise<BatchResult<unknown>>[] = [];
  const addOptions = canGiveUp ? { timeout, signal, onGiveUp: exchanges.onGiveUp } : undefined;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    let promise: Promise<unknown>;
    try {
      promise = pending.add(id, methods[i]!, addOptions);
    } catch (error) {
      // A duplicate id from a custom generator: fail the calls registered so far.
      for (let j = 0; j < i; j++) pending.reject(ids[j]!, error as Error);
      for (let j = 0; j < i; j++) exchanges.byId.delete(ids[j]!);
      return Promise.reject(error);
    }
    exchanges.byId.set(id, exchange);
    exchange.live++;
    promises.push(
      promise.then(
        (value): BatchResult<unknown> => ({ ok: true, value }),
        (error: unknown): BatchResult<unknown> => ({
          ok: false,
          // Kit errors as they are; anything else becomes a TransportError naming the call.
          error:
            isJsonRpcError(error) || error instanceof LocalError
              ? error
              : sendError(error, { method: methods[i]!, id }),
        }),
      ),
    );
  }
  if (canGiveUp && ids.length > 0) exchange.controller = new AbortController();
  // Keep call order: whatever auto-batching holds goes first.
  flushQueue();
  exchange.sent = true;
  const sent = session.send('[' + texts.join(',') + ']', exchange.controller?.signal);
  if (ids.length === 0) {
    return sent.then(
      () => [],
      (error: unknown) => {
        throw sendError(error, { method: entries[0]!.method });
      },
    );
  }
  sent.then(undefined, (error: unknown) => exchanges.fail(exchange, error));
  return Promise.all(promises);
}
