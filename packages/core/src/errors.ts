/**
 * The two error families of the kit.
 *
 * - **Wire errors**: {@link JsonRpcError} and one subclass per reserved code. They carry a numeric
 *   `code`, cross the wire as error objects, and are rebuilt on the client by
 *   {@link fromErrorObject}.
 * - **Local errors**: {@link TimeoutError}, {@link AbortError}, {@link ConnectionClosedError},
 *   {@link TransportError}, {@link ProtocolError}. They carry a string `code`, never cross the
 *   wire, and say which call failed.
 *
 * Match on `error.code`; `instanceof` works too, even across two copies of this package, because
 * the classes are branded with `Symbol.for`.
 *
 * The wire errors live in `wire-errors.ts`, the local errors in `local-errors.ts`, what they share
 * in `error-base.ts`; this module gathers them for the rest of the package.
 *
 * @module
 */
export type { CallInfo, JsonRpcErrorOptions } from './error-base.js';
export * from './local-errors.js';
export * from './wire-errors.js';
