/**
 * The seam between subscriptions and a cross-process fan-out (Redis pub/sub in
 * `@jsonrpc-kit/redis`): the interface a fan-out implements, and the per-topic bookkeeping the
 * subscriptions keep with it.
 *
 * @module
 */

/**
 * Carries published items between the processes that serve the same subscriptions. Items
 * travel as JSON text, so each is serialized once, in the process that publishes it, and never
 * parsed on the way to the subscribers. `createRedisFanout()` of `@jsonrpc-kit/redis` is one.
 *
 * @example
 * ```ts
 * // An in-process fan-out (one process: what the subscriptions do without one).
 * const listeners = new Map<string, Set<(text: string) => void>>();
 * const local: SubscriptionFanout = {
 *   async publishText(topic, text) {
 *     for (const listener of listeners.get(topic) ?? []) listener(text);
 *   },
 *   async subscribeText(topic, listener) {
 *     if (!listeners.has(topic)) listeners.set(topic, new Set());
 *     listeners.get(topic)!.add(listener);
 *     return async () => void listeners.get(topic)?.delete(listener);
 *   },
 * };
 * ```
 */
export interface SubscriptionFanout {
  /**
   * Sends an item to every process subscribed to `topic`, this one included.
   *
   * @param topic - the subscription's name
   * @param text - the item's JSON text
   * @returns resolves once the fan-out took it
   */
  publishText(topic: string, text: string): Promise<void>;
  /**
   * Listens to `topic`; called once per process whatever the number of its subscribers.
   *
   * @param topic - the subscription's name
   * @param listener - receives each item's JSON text
   * @returns resolves, once items published from now on are sure to arrive, to a function that
   *   stops listening
   */
  subscribeText(topic: string, listener: (text: string) => void): Promise<() => Promise<void>>;
}

/** The subscriptions' side of a fan-out: one listener per declared topic. */
export interface FanoutTopics {
  /**
   * Resolves once this process hears `topic` (listening from the first call on).
   *
   * @param topic - the subscription's name
   * @returns resolves when listening; rejects (and forgets the attempt) when the fan-out refuses
   */
  listen(topic: string): Promise<void>;
  /**
   * Publishes an item's text; a refusal goes to the report.
   *
   * @param topic - the subscription's name
   * @param text - the item's JSON text
   */
  publish(topic: string, text: string): void;
  /**
   * Stops listening to `topic`.
   *
   * @param topic - the subscription's name
   */
  forget(topic: string): void;
  /** Stops listening to every topic. */
  forgetAll(): void;
}

/**
 * Keeps one fan-out listener per topic for the subscriptions.
 *
 * @param fanout - the fan-out
 * @param deliver - hands an item's text to this process's subscribers of a topic
 * @param report - told when a publish is refused or stopping to listen fails
 * @returns the topics
 */
export function fanoutTopics(
  fanout: SubscriptionFanout,
  deliver: (topic: string, text: string) => void,
  report: (error: unknown, topic: string) => void,
): FanoutTopics {
  const topics = new Map<string, Promise<() => Promise<void>>>();
  const forget = (topic: string): void => {
    const listening = topics.get(topic);
    if (listening === undefined) return;
    topics.delete(topic);
    listening.then((stop) => stop()).catch((error: unknown) => report(error, topic));
  };
  return {
    listen(topic) {
      let listening = topics.get(topic);
      if (listening === undefined) {
        listening = fanout.subscribeText(topic, (text) => deliver(topic, text));
        topics.set(topic, listening);
        listening.catch(() => {
          if (topics.get(topic) === listening) topics.delete(topic);
        });
      }
      return listening.then(() => undefined);
    },
    publish(topic, text) {
      fanout.publishText(topic, text).catch((error: unknown) => report(error, topic));
    },
    forget,
    forgetAll() {
      for (const topic of [...topics.keys()]) forget(topic);
    },
  };
}
