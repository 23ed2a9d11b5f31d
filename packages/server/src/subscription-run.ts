/**
 * How a live subscription runs and ends, for `createSubscriptions()`: items checked and written
 * once, delivered into its outbox (the overflow policy ends it), an iterable producer pumped, the
 * end (out of the registries, producer stopped and cleaned up, the dialect's end notice after
 * what its queue kept), and failures reported to `onError`.
 *
 * @module
 */
import {
  type JsonRpcParams,
  type Peer,
  type StandardSchemaV1,
  type SubscriptionDialect,
  SubscriptionError,
  serializeNotification,
} from '@jsonrpc-kit/core';
import { formatIssues, validate } from '@jsonrpc-kit/core/engine';
import {
  type Declared,
  errorObject,
  type Live,
  type Registry,
  type SharedTail,
} from './subscription-live.js';
import type { SubscriptionsOptions } from './subscription-types.js';

/**
 * The end of an item's notification after its JSON text: what a delivery appends to a
 * subscription's envelope head. Made once per item, whatever the number of subscribers.
 *
 * @param json - the item's JSON text
 * @returns the text every subscriber's envelope ends with
 */
export function itemTail(json: string): string {
  return json + '}}';
}

/** What {@link createLiveRun} needs from `createSubscriptions()`. */
export interface LiveRunConfig {
  /** The options, for their `onError` hook. */
  readonly options: SubscriptionsOptions;
  readonly dialect: SubscriptionDialect;
  readonly maxQueue: number;
  readonly validateItems: boolean;
  /** Writes items (the server's codec). */
  readonly write: (value: unknown) => string | undefined;
  /** The registries by connection, shared with `createSubscriptions()`. */
  readonly registries: Map<Peer, Registry>;
  /** The live subscriptions by name, shared with `createSubscriptions()`. */
  readonly byName: Map<string, Set<Live>>;
}

/** What {@link createLiveRun} offers `createSubscriptions()`. */
export interface LiveRun {
  /** Tells `onError` of a live subscription's failure (the hook's throws are ignored). */
  report(error: unknown, live: Live): void;
  /** The item's JSON text, checked against the schema when validation is on. */
  itemText(name: string, schema: StandardSchemaV1 | undefined, item: unknown): string;
  /**
   * Ends a live subscription; with `last`, what its outbox holds still goes out, followed by
   * `last`; without, what waits is dropped.
   */
  end(live: Live, reason?: unknown, last?: { readonly text: string | undefined }): void;
  /** Ends a live subscription from the server's side, telling the subscriber when it can. */
  endWith(live: Live, error: unknown): void;
  /**
   * Puts one item into a live subscription's outbox: its notification is the subscription's
   * envelope head and `tail`, one concatenation per subscriber (none for a shared tail and a
   * transport that takes bytes: it gets both parts).
   *
   * @param tail - the item's JSON text followed by the envelope's end ({@link itemTail}); a
   *   {@link SharedTail} when the item goes to many subscriptions
   */
  deliver(live: Live, tail: string | SharedTail): void;
  /** Pushes an iterable producer's items until it ends or the subscription does. */
  iterate(live: Live, iterable: AsyncIterable<unknown>, schema: Declared['item']): Promise<void>;
}

/**
 * Creates the run of the live subscriptions of one `createSubscriptions()`.
 *
 * @param config - the options, the dialect, the queue bound, item writing, the shared maps
 * @returns report, item text, end, delivery and iteration
 */
export function createLiveRun(config: LiveRunConfig): LiveRun {
  const { options, dialect, maxQueue, validateItems, write, registries, byName } = config;

  const report = (error: unknown, live: Live): void => {
    try {
      options.onError?.(error, { name: live.name, id: live.id });
    } catch {
      // the hook's own throws are ignored
    }
  };

  /** The item's JSON text, checked against the schema when validation is on. */
  const itemText = (name: string, schema: StandardSchemaV1 | undefined, item: unknown): string => {
    if (validateItems && schema !== undefined) {
      const verdict = validate(schema, item);
      if (!(verdict instanceof Promise) && verdict.issues !== undefined) {
        const issues = formatIssues(verdict.issues)
          .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`))
          .join('; ');
        throw new TypeError(`Item of subscription "${name}" breaks its schema: ${issues}`);
      }
    }
    const json = write(item);
    return json === undefined ? 'null' : json;
  };

  /**
   * Ends a live subscription: out of the registries, producer stopped and cleaned up. With
   * `last`, what its outbox holds still goes out, followed by `last` (the end notice, or
   * `undefined` for none); without, what waits is dropped (the subscriber left or unsubscribed).
   */
  const end = (
    live: Live,
    reason?: unknown,
    last?: { readonly text: string | undefined },
  ): void => {
    if (live.ended) return;
    live.ended = true;
    live.registry.live.delete(live.id);
    if (live.registry.live.size === 0) registries.delete(live.registry.peer);
    const named = byName.get(live.name);
    named?.delete(live);
    if (named?.size === 0) byName.delete(live.name);
    if (last === undefined) {
      if (live.timer !== undefined) clearTimeout(live.timer);
      live.timer = undefined;
      live.clear();
    } else {
      // A pending timer still releases the outbox, after the subscribe answer.
      live.finish(last.text);
    }
    live.controller.abort(reason ?? new SubscriptionError('SUBSCRIPTION_ENDED', 'Unsubscribed'));
    const { cleanup, iterator } = live;
    live.cleanup = undefined;
    live.iterator = undefined;
    try {
      cleanup?.();
    } catch (error) {
      report(error, live);
    }
    iterator?.return?.().catch((error: unknown) => report(error, live));
  };

  /**
   * Ends a live subscription from the server's side and tells the subscriber when the dialect
   * can, after every item its queue kept.
   */
  const endWith = (live: Live, error: unknown): void => {
    if (live.ended) return;
    let text: string | undefined;
    if (dialect.end !== undefined) {
      const params: Record<string, unknown> = { [dialect.idKey]: live.id };
      if (error !== undefined) params.error = errorObject(error);
      text = serializeNotification(dialect.end, params as JsonRpcParams);
    }
    end(live, error, { text });
  };

  const deliver = (live: Live, tail: string | SharedTail): void => {
    if (live.ended) return;
    if (typeof tail === 'string' ? live.push(live.head + tail) : live.pushShared(tail)) return;
    const error = new SubscriptionError(
      'SUBSCRIPTION_OVERFLOW',
      `Subscription "${live.name}" closed: its subscriber fell behind (${maxQueue} items waiting, or its connection's byte budget full)`,
      { name: live.name },
    );
    report(error, live);
    endWith(live, error);
  };

  const iterate = async (
    live: Live,
    iterable: AsyncIterable<unknown>,
    schema: Declared['item'],
  ) => {
    const iterator = iterable[Symbol.asyncIterator]();
    live.iterator = iterator;
    try {
      while (!live.ended) {
        const step = await iterator.next();
        if (step.done === true || live.ended) break;
        deliver(live, itemTail(itemText(live.name, schema, step.value)));
      }
      live.iterator = undefined;
      endWith(live, undefined);
    } catch (error) {
      live.iterator = undefined;
      if (live.ended) return;
      report(error, live);
      endWith(live, error);
    }
  };

  return { report, itemText, end, endWith, deliver, iterate };
}
