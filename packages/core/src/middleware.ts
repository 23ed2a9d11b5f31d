/**
 * Middleware, one shape for the server and the client: `(ctx, next) => result`. The chain runs
 * in registration order on the way in and unwinds in reverse on the way out, like hono's and
 * koa's.
 *
 * @module
 */

/**
 * One step of a chain: do something with `ctx`, call `next()` to run the rest (at most once),
 * and return (or transform) what it resolves to. Throwing fails the call.
 *
 * @param ctx - the call's context; the server's and the client's differ, the shape is shared
 * @param next - runs the rest of the chain and resolves to the result
 * @returns the result, or a promise of it
 * @example
 * ```ts
 * const timing: Middleware<{ method: string }> = async (ctx, next) => {
 *   const started = performance.now();
 *   try {
 *     return await next();
 *   } finally {
 *     console.log(ctx.method, performance.now() - started);
 *   }
 * };
 * ```
 */
export type Middleware<C> = (ctx: C, next: () => Promise<unknown>) => unknown;

/**
 * Runs `ctx` through a chain, then `last`. O(length of the chain) per call.
 *
 * @param list - the middleware, in registration order
 * @param ctx - the call's context
 * @param last - the innermost step (the handler, or the send)
 * @param repeatable - whether a middleware may call `next()` again, to run the rest of the chain
 *   anew (the client's retries); the server's chain runs once @default false
 * @returns what the chain resolves to
 * @throws (rejects) Error "next() called more than once" when a middleware calls `next` twice
 * @example
 * ```ts
 * await runMiddleware([async (ctx, next) => (await next()) as number * 2], {}, () => 21); // 42
 * ```
 */
export function runMiddleware<C>(
  list: readonly Middleware<C>[],
  ctx: C,
  last: () => unknown,
  repeatable = false,
): Promise<unknown> {
  let done = -1;
  const step = (i: number): Promise<unknown> => {
    if (!repeatable && i <= done) return Promise.reject(new Error('next() called more than once'));
    done = i;
    try {
      return Promise.resolve(i === list.length ? last() : list[i]!(ctx, () => step(i + 1)));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return step(0);
}
