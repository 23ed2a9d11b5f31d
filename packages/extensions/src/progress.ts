/**
 * Progress for a client and server pair, in the shape of a {@link Profile}: a middleware gives
 * handlers a progress reporter, and a profiled client routes progress notifications to the
 * `onProgress` option of the request that asked for them.
 *
 * @module
 */

import { type Client, type ClientOptions, createClient } from '@jsonrpc-kit/client';
import type {
  IncomingContext,
  JsonRpcNotification,
  JsonRpcParams,
  RequestOptions,
  Transport,
} from '@jsonrpc-kit/core';
import type { HandlerContext, Middleware } from '@jsonrpc-kit/server';
import type { Profile, ProgressToken } from './profiles.js';

/**
 * Sends one progress notification to the caller.
 *
 * @param value - the progress (for MCP: `{ progress, total?, message? }`)
 * @returns when the notification was handed to the transport; a no-op once the call has ended
 */
export type ProgressReporter<V = unknown> = (value: V) => Promise<void>;

const reporters = new WeakMap<object, ProgressReporter<any>>();

/**
 * The progress reporter of a call, when the caller asked for progress (sent a token) on a duplex
 * connection and the {@link progress} middleware is installed.
 *
 * @param ctx - the handler's context
 * @returns the reporter, or `undefined`
 * @example
 * ```ts
 * server.method('index', async (params, ctx) => {
 *   const report = progressOf<McpProgress>(ctx);
 *   for (let i = 1; i <= 10; i++) await report?.({ progress: i, total: 10 });
 *   return 'done';
 * });
 * ```
 */
export function progressOf<V = unknown>(ctx: HandlerContext): ProgressReporter<V> | undefined {
  return reporters.get(ctx);
}

/**
 * Server side of progress: for each call whose params carry the profile's progress token, makes a
 * reporter available through {@link progressOf}. Reports after the call ended are dropped (a
 * caller never sees progress after the answer). Over stateless transports (HTTP) there is nobody
 * to notify, so there is no reporter.
 *
 * @param profile - the profile (`lspProfile`, `mcpProfile`, or your own)
 * @returns the middleware
 * @example
 * ```ts
 * const server = createServer({ cancellation: mcpProfile.cancellation });
 * server.use(progress(mcpProfile));
 * ```
 */
export function progress<V>(profile: Profile<V>): Middleware {
  const protocol = profile.progress;
  return async (ctx, next) => {
    const peer = ctx.peer;
    const token = peer === undefined || ctx.notification ? undefined : protocol.tokenOf(ctx.params);
    if (token === undefined) return next();
    let open = true;
    reporters.set(ctx, (value: V) =>
      open ? peer!.notify(protocol.method, protocol.toParams(token, value)) : Promise.resolve(),
    );
    try {
      return await next();
    } finally {
      open = false;
      reporters.delete(ctx);
    }
  };
}

/** Per-call options of a {@link ProfiledClient}'s `request`. */
export interface ProfiledRequestOptions<V = unknown> extends RequestOptions {
  /**
   * Receives the progress the handler reports. Setting it sends a progress token with the call
   * (which then needs params by name, or none).
   */
  readonly onProgress?: ((value: V) => void) | undefined;
}

/** A client speaking a profile: cancellation on the profile's wire, and progress per call. */
export interface ProfiledClient<V = unknown> extends Client {
  /**
   * Sends a request; `onProgress` receives the progress the handler reports.
   *
   * @param method - the method
   * @param params - the params (by name, or none, when `onProgress` is set)
   * @param options - signal, timeout, onProgress
   * @returns the result
   * @throws TypeError when `onProgress` is set and params are positional
   */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: ProfiledRequestOptions<V>,
  ): Promise<T>;
}

/** Options of {@link createProfiledClient}. */
export interface ProfiledClientOptions<V = unknown> extends ClientOptions {
  /** The profile; its cancellation is used unless `cancellation` is given. */
  readonly profile: Profile<V>;
}

/**
 * Creates a client that speaks a profile: the profile's cancellation notification on timeout and
 * abort, and progress: `request(method, params, { onProgress })` puts a fresh token in the params
 * and routes the matching progress notifications to `onProgress` until the call settles. Other
 * notifications go to `onNotification`.
 *
 * @param transport - the transport, not yet started
 * @param options - the profile and the usual client options
 * @returns the client
 * @example
 * ```ts
 * const client = createProfiledClient(transport, { profile: mcpProfile });
 * await client.request('index', { path: '.' }, { onProgress: (p) => console.log(p.progress, p.total) });
 * ```
 */
export function createProfiledClient<V>(
  transport: Transport,
  options: ProfiledClientOptions<V>,
): ProfiledClient<V> {
  const { profile, ...clientOptions } = options;
  const protocol = profile.progress;
  const listeners = new Map<ProgressToken, (value: V) => void>();
  const userOnNotification = options.onNotification;
  let nextToken = 0;

  const onNotification = (notification: JsonRpcNotification, ctx: IncomingContext) => {
    if (notification.method === protocol.method) {
      const progress = protocol.fromParams(notification.params);
      const listener = progress === undefined ? undefined : listeners.get(progress.token);
      if (listener !== undefined) {
        try {
          listener(progress!.value);
        } catch (error) {
          options.onError?.(error instanceof Error ? error : new Error(String(error)), {
            kind: 'notification-failed',
            level: 'error',
            method: notification.method,
          });
        }
        return;
      }
    }
    return userOnNotification?.(notification, ctx);
  };

  const client = createClient(transport, {
    ...clientOptions,
    cancellation: options.cancellation ?? profile.cancellation,
    onNotification,
  });

  const request = <T>(
    method: string,
    params?: JsonRpcParams,
    requestOptions?: ProfiledRequestOptions<V>,
  ): Promise<T> => {
    const onProgress = requestOptions?.onProgress;
    if (onProgress === undefined) return client.request<T>(method, params, requestOptions);
    let token: ProgressToken;
    do token = ++nextToken;
    while (listeners.has(token));
    let withToken: JsonRpcParams;
    try {
      withToken = protocol.withToken(params, token);
    } catch (error) {
      return Promise.reject(error);
    }
    listeners.set(token, onProgress);
    const { onProgress: _, ...rest } = requestOptions!;
    const done = (): void => {
      listeners.delete(token);
    };
    const call = client.request<T>(method, withToken, rest);
    call.then(done, done);
    return call;
  };

  const profiled: ProfiledClient<V> = {
    request,
    notify: (method, params) => client.notify(method, params),
    batch: (build, batchOptions) => client.batch(build, batchOptions),
    use: (contract, useOptions) => client.use(contract, useOptions),
    proxy: (proxyOptions) => client.proxy(proxyOptions),
    get pending() {
      return client.pending;
    },
    close: (reason) => client.close(reason),
    get closed() {
      return client.closed;
    },
  } as ProfiledClient<V>;
  return profiled;
}
