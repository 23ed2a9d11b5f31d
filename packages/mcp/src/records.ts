/**
 * The two record helpers every part of the package uses on MCP's JSON: whether a value is a plain
 * object, and an object without its `undefined` members (so they do not reach the wire).
 *
 * @module
 */

/**
 * Whether a value is a plain JSON object (not `null`, not an array).
 *
 * @param value - anything
 * @returns whether it is a record
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deletes the members that are `undefined`, in place.
 *
 * @param object - the object
 * @returns the same object
 */
export function defined<T extends Record<string, unknown>>(object: T): T {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}
