/**
 * `noop`: the function that does nothing, one for every listener and handler slot of the package
 * that must not be empty (an `error` listener that swallows, a promise's ignored rejection).
 *
 * @module
 */

/** Does nothing. */
export function noop(): void {}
