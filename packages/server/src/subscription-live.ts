/**
 * What `createSubscriptions()` keeps per subscription and per connection (the declared
 * subscription, the live one, a connection's registry), and its small helpers: ids, the item
 * validation default, how texts reach a peer, the error object of an end notice.
 *
 * @module
 */
import {
  ErrorCode,
  isJsonRpcError,
  type JsonRpcParams,
  type Peer,
  type StandardSchemaV1,
  SubscriptionError,
} from '@jsonrpc-kit/core';
import type { Outbox, TextTarget } from './subscription-outbox.js';
import type { Producer } from './subscription-types.js';

export interface Declared {
  readonly producer: Producer | undefined;
  readonly params: StandardSchemaV1 | undefined;
  readonly item: StandardSchemaV1 | undefined;
}

export interface Live {
  readonly id: string;
  readonly name: string;
  readonly params: unknown;
  readonly head: string;
  readonly registry: Registry;
  readonly controller: AbortController;
  readonly outbox: Outbox;
  ended: boolean;
  cleanup: (() => void) | undefined;
  iterator: AsyncIterator<unknown> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface Registry {
  readonly peer: Peer;
  /** Sends to the peer until a subscription's outbox learns its transport takes texts straight. */
  readonly target: TextTarget;
  readonly live: Map<string, Live>;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).padStart(2, '0'),
);

/** An unguessable subscription id: `0x` and 128 random bits in hex, as Ethereum nodes give. */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = '0x';
  for (const byte of bytes) id += HEX[byte];
  return id;
}

export function defaultValidateItems(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return env?.NODE_ENV !== 'production';
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/**
 * How a subscription sends its serialized texts to a peer: as they are where the peer can
 * (`sendText`, a server connection), else parsed once more and sent with `notify`.
 */
export function textTarget(peer: Peer): TextTarget {
  if (peer.sendText !== undefined) return { send: (text) => peer.sendText!(text) };
  return {
    send(text) {
      const message = JSON.parse(text) as { method: string; params?: JsonRpcParams };
      return peer.notify(message.method, message.params);
    },
  };
}

export function errorObject(error: unknown): { code: number; message: string } {
  return isJsonRpcError(error)
    ? { code: error.code, message: error.message }
    : error instanceof SubscriptionError
      ? { code: ErrorCode.InternalError, message: error.message }
      : { code: ErrorCode.InternalError, message: 'Internal error' };
}
