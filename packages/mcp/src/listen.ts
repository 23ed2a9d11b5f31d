/**
 * `subscriptions/listen` (MCP 2026-07-28, SEP-2575): the stateless revision has no session to
 * push notifications on, so a client opens a long-lived request instead. The server answers it
 * with a stream: first `notifications/subscriptions/acknowledged` (the notification types it
 * agreed to send), then the list changes and resource updates the client asked for, each tagged
 * with the request's id in `_meta`. The result comes only when the server ends the subscription
 * (on close); a client that goes away just drops the stream.
 *
 * @module
 */
import { InvalidParamsError, ProtocolError } from '@jsonrpc-kit/core';
import type { HandlerContext } from '@jsonrpc-kit/server';
import { isRecord } from './records.js';

/** The `_meta` key of the subscription a notification (or the listen result) belongs to. */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The notifications a client opts in to on a `subscriptions/listen` stream. */
export interface SubscriptionFilter {
  /** `notifications/tools/list_changed`. */
  readonly toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  readonly promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  readonly resourcesListChanged?: boolean;
  /** `notifications/resources/updated` of these URIs. */
  readonly resourceSubscriptions?: readonly string[];
}

/** A list whose changes a listen stream can carry. */
export type ListenListKind = 'tools' | 'prompts' | 'resources';

interface Stream {
  readonly id: unknown;
  readonly closed: Promise<void>;
  readonly peer: { readonly inFlight?: number } | undefined;
  readonly filter: SubscriptionFilter;
  readonly notify: (method: string, params: Record<string, unknown>) => void;
  readonly end: () => void;
}

const FLAGS: Readonly<Record<ListenListKind, keyof SubscriptionFilter>> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The open `subscriptions/listen` streams of one server, and what each asked for.
 */
export class ListenHub {
  readonly #streams = new Set<Stream>();

  /** How many streams are open. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * Serves one `subscriptions/listen` request: acknowledges it, then carries the notifications
   * it asked for until the client goes away (its signal) or {@link ListenHub.end} is called.
   *
   * @param params - the request's params (`notifications`: the filter)
   * @param ctx - the handler's context (its peer receives the notifications)
   * @param capabilities - the server's capabilities now (what it can send)
   * @returns the result that ends the subscription
   * @throws InvalidParamsError when `notifications` is not an object
   * @throws ProtocolError when the call has no connection (`server.handle()`)
   */
  async serve(
    params: Record<string, unknown>,
    ctx: HandlerContext,
    capabilities: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const asked = params.notifications;
    if (!isRecord(asked)) throw new InvalidParamsError('"notifications" must be an object');
    const can = (name: string, flag: string) =>
      isRecord(capabilities[name]) && capabilities[name][flag] === true;
    const agreed: {
      -readonly [K in keyof SubscriptionFilter]: SubscriptionFilter[K];
    } = {};
    if (asked.toolsListChanged === true && can('tools', 'listChanged')) {
      agreed.toolsListChanged = true;
    }
    if (asked.promptsListChanged === true && can('prompts', 'listChanged')) {
      agreed.promptsListChanged = true;
    }
    if (asked.resourcesListChanged === true && can('resources', 'listChanged')) {
      agreed.resourcesListChanged = true;
    }
    if (Array.isArray(asked.resourceSubscriptions) && can('resources', 'subscribe')) {
      agreed.resourceSubscriptions = asked.resourceSubscriptions.filter(
        (uri): uri is string => typeof uri === 'string',
      );
    }
    const id = ctx.id;
    const peer = ctx.peer;
    if (peer === undefined) {
      throw new ProtocolError('subscriptions/listen needs a connection to the client');
    }
    const meta = { [META_SUBSCRIPTION_ID]: id };
    const ended = { value: false };
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let closed!: () => void;
    const stream: Stream = {
      id,
      peer: peer as { readonly inFlight?: number } | undefined,
      closed: new Promise<void>((resolve) => {
        closed = resolve;
      }),
      filter: agreed,
      notify: (method, extra) => {
        if (ended.value) return;
        peer.notify(method, { ...extra, _meta: meta }).catch(() => {});
      },
      end: () => {
        ended.value = true;
        finish();
      },
    };
    const onAbort = () => stream.end();
    if (ctx.signal.aborted) return { _meta: meta };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    // The acknowledgment is the first message of the stream, before the stream is registered.
    stream.notify('notifications/subscriptions/acknowledged', { notifications: agreed });
    this.#streams.add(stream);
    try {
      await done;
    } finally {
      this.#streams.delete(stream);
      ctx.signal.removeEventListener('abort', onAbort);
      closed();
    }
    return { _meta: meta };
  }

  /**
   * Tells the streams that asked for it that a list changed.
   *
   * @param kind - which list
   */
  listChanged(kind: ListenListKind): void {
    const flag = FLAGS[kind];
    for (const stream of this.#streams) {
      if (stream.filter[flag] === true) stream.notify(`notifications/${kind}/list_changed`, {});
    }
  }

  /**
   * Tells the streams subscribed to a resource that it changed.
   *
   * @param uri - the resource's URI
   */
  resourceUpdated(uri: string): void {
    for (const stream of this.#streams) {
      if (stream.filter.resourceSubscriptions?.includes(uri)) {
        stream.notify('notifications/resources/updated', { uri });
      }
    }
  }

  /**
   * Ends every stream: each `subscriptions/listen` request is answered (the server is closing).
   *
   * @returns resolves once every stream's result was handed to its connection (at most a second)
   */
  async end(): Promise<void> {
    const streams = [...this.#streams];
    if (streams.length === 0) return;
    for (const stream of streams) stream.end();
    await Promise.all(streams.map((stream) => stream.closed));
    // The results are sent after the handlers return: wait until no call is running on their
    // connections, so that closing them does not drop the results.
    const deadline = Date.now() + 1_000;
    const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
    do await tick();
    while (streams.some((s) => (s.peer?.inFlight ?? 0) > 0) && Date.now() < deadline);
  }
}
