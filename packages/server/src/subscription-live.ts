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
import type { ConnectionBudget } from './connection-budget.js';
import { Outbox, type OverflowPolicy, type TextTarget } from './subscription-outbox.js';
import type { Producer } from './subscription-types.js';
import { utf8Bytes } from './utf8.js';

/**
 * The tail of an item delivered to many subscriptions (a publish): its text, and its UTF-8
 * bytes made once, on the first subscription whose transport takes bytes. Then each such
 * subscriber's transport gets its head and this tail as they are, not an encoding of its whole
 * notification.
 */
export class SharedTail {
  readonly text: string;
  #bytes: Uint8Array | undefined = undefined;

  /** @param text - the item's JSON text followed by the envelope's end */
  constructor(text: string) {
    this.text = text;
  }

  /** The text's UTF-8 bytes. */
  get bytes(): Uint8Array {
    return (this.#bytes ??= utf8Bytes(this.text));
  }
}

export interface Declared {
  readonly producer: Producer | undefined;
  readonly params: StandardSchemaV1 | undefined;
  readonly item: StandardSchemaV1 | undefined;
}

/**
 * One live subscription: what its end needs, and its outbox. A class that is its own outbox:
 * the fan-out of an item reads one object per subscriber (its head, state and target) before
 * the call to the transport.
 */
export class Live extends Outbox {
  readonly id: string;
  readonly name: string;
  readonly params: unknown;
  /** The envelope of its items up to the item's text: made once, at subscribe. */
  readonly head: string;
  readonly registry: Registry;
  readonly controller: AbortController = new AbortController();
  ended = false;
  cleanup: (() => void) | undefined = undefined;
  iterator: AsyncIterator<unknown> | undefined = undefined;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #headBytes: Uint8Array | undefined = undefined;

  /**
   * @param init - its id, name, params, envelope head and connection's registry
   * @param limit - the outbox bound (see {@link Outbox})
   * @param policy - the overflow policy
   * @param onFailed - told when a send rejects
   */
  constructor(
    init: Pick<Live, 'id' | 'name' | 'params' | 'head' | 'registry'>,
    limit: number,
    policy: OverflowPolicy,
    onFailed: (error: unknown) => void,
  ) {
    super(init.registry.target, limit, policy, onFailed, init.registry.budget);
    this.id = init.id;
    this.name = init.name;
    this.params = init.params;
    this.head = init.head;
    this.registry = init.registry;
  }

  /**
   * Pushes this subscription's notification of a shared item: as bytes where its transport
   * takes them (the head encoded once per subscription, the tail once per item), else as text.
   *
   * @param tail - the item's tail
   * @returns as {@link Outbox.push}
   */
  pushShared(tail: SharedTail): boolean {
    if (!this.takesBytes) return this.push(this.head + tail.text);
    return this.pushBytes((this.#headBytes ??= utf8Bytes(this.head)), tail.bytes);
  }
}

export interface Registry {
  readonly peer: Peer;
  /** Sends to the peer until a subscription's outbox learns its transport takes texts straight. */
  readonly target: TextTarget;
  readonly live: Map<string, Live>;
  /** The budget its subscriptions share (the connection's: it outlives the registry). */
  readonly budget: ConnectionBudget;
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
