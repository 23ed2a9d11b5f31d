/**
 * Why a request body was read as no text: shared by the handlers that read bodies themselves.
 *
 * @module
 */

/** `readBody`: the body was over the limit. */
export const TOO_LARGE = 1;
/** `readBody`: the body did not arrive in time. */
export const TIMED_OUT = 2;
/** Why `readBody` read no text. */
export type BodyFailure = typeof TOO_LARGE | typeof TIMED_OUT;
