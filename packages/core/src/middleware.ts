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

/** Whether a value looks like a contract (entries with a `kind`), for a clearer `use()` error. */
function isContractLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const entries = Object.values(value);
  return entries.length > 0 && entries.every((entry) => typeof entry?.kind === 'string');
}

/** A list of middleware its owner reads on every call and `use()` replaces (never mutates). */
export interface MiddlewareList<M> {
  /** The current list, in registration order (a new array after each change). */
  readonly current: readonly M[];
  /**
   * Adds a middleware at the end.
   *
   * @param middleware - the middleware
   * @returns a disposer that removes it (once)
   * @throws TypeError when it is not a function (naming `contractHint` when it is a contract)
   */
  use(middleware: M): () => void;
}

/**
 * Makes the middleware list of a client or a server: `use()` checks what it gets, and the list is
 * replaced on change, so a call that started keeps the chain it started with.
 *
 * @param contractHint - what `use()` says when given a contract instead of a function
 * @returns the list
 * @example
 * ```ts
 * const chain = createMiddlewareList<Middleware<{ method: string }>>('use server.implement()');
 * const remove = chain.use(async (_ctx, next) => next());
 * chain.current.length; // 1
 * remove();
 * ```
 */
export function createMiddlewareList<M>(contractHint: string): MiddlewareList<M> {
  const list: { current: readonly M[]; use(middleware: M): () => void } = {
    current: [],
    use(middleware) {
      if (typeof middleware !== 'function') {
        throw new TypeError(
          isContractLike(middleware) ? contractHint : 'A middleware must be a function',
        );
      }
      list.current = [...list.current, middleware];
      return () => {
        const index = list.current.indexOf(middleware);
        if (index >= 0) list.current = list.current.filter((_, i) => i !== index);
      };
    },
  };
  return list;
}
