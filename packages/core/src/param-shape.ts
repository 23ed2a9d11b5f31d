/**
 * How a contract entry takes its params, read from its schema: the parameter names of an object
 * schema ({@link paramNamesOf}), by name or by position ({@link paramsShapeOf}), and the check of
 * names given explicitly ({@link checkParamNames}).
 *
 * @module
 */

/**
 * The parameter names of an object schema, in declaration order: valibot's `entries`, zod's
 * `shape`, or a JSON Schema's `properties`. `undefined` for any other schema.
 *
 * @param schema - a schema
 * @returns the names, or `undefined`
 * @example
 * ```ts
 * paramNamesOf(v.object({ minuend: v.number(), subtrahend: v.number() })); // ['minuend', 'subtrahend']
 * ```
 */
export function paramNamesOf(schema: unknown): readonly string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { entries?: unknown; shape?: unknown; type?: unknown; properties?: unknown };
  const keys = s.entries ?? s.shape ?? (s.type === 'object' ? s.properties : undefined);
  return typeof keys === 'object' && keys !== null && !Array.isArray(keys)
    ? Object.freeze(Object.keys(keys))
    : undefined;
}

/** How a schema takes params: by name (an object schema) or by position (a tuple or array schema). */
export type ParamsShape = 'byName' | 'byPosition';

/** Schema `type`s (valibot, zod 4, JSON Schema) that take params by position. */
const POSITIONAL_TYPES: ReadonlySet<unknown> = /* @__PURE__ */ new Set([
  'tuple',
  'strict_tuple',
  'loose_tuple',
  'tuple_with_rest',
  'array',
]);

/**
 * How a schema takes params: `"byName"` for an object schema (see {@link paramNamesOf}),
 * `"byPosition"` for a tuple or array schema (valibot's and zod's tuples and arrays, a JSON Schema
 * of `type: "array"`), `undefined` for any other schema. Absent params are read as the empty value
 * of this shape (`{}` or `[]`).
 *
 * @param schema - a schema
 * @returns the shape, or `undefined` when the schema does not tell
 * @example
 * ```ts
 * paramsShapeOf(v.tuple([v.string()])); // 'byPosition'
 * paramsShapeOf(v.object({ id: v.string() })); // 'byName'
 * ```
 */
export function paramsShapeOf(schema: unknown): ParamsShape | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  if (paramNamesOf(schema) !== undefined) return 'byName';
  const s = schema as {
    type?: unknown;
    items?: unknown;
    prefixItems?: unknown;
    def?: { type?: unknown };
    _def?: { typeName?: unknown };
  };
  const zod3 = s._def?.typeName;
  return POSITIONAL_TYPES.has(s.type) ||
    POSITIONAL_TYPES.has(s.def?.type) ||
    zod3 === 'ZodTuple' ||
    zod3 === 'ZodArray' ||
    Array.isArray(s.items) ||
    Array.isArray(s.prefixItems)
    ? 'byPosition'
    : undefined;
}

/**
 * Checks a list of parameter names: an array of distinct, non-empty strings.
 *
 * @param names - the names given, or `undefined`
 * @param owner - what the names belong to, for the message (`Method "add"`)
 * @returns the names, frozen, or `undefined` when none were given
 * @throws TypeError naming the owner when a name is empty, not a string, or repeated
 * @example
 * ```ts
 * checkParamNames(['a', 'b'], 'Method "add"'); // ['a', 'b']
 * checkParamNames(['a', 'a'], 'Method "add"'); // throws TypeError
 * ```
 */
export function checkParamNames(
  names: readonly string[] | undefined,
  owner: string,
): readonly string[] | undefined {
  if (names === undefined) return undefined;
  if (!Array.isArray(names)) throw new TypeError(`${owner}: paramNames must be an array`);
  const seen = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError(`${owner}: every parameter name must be a non-empty string`);
    }
    if (seen.has(name)) throw new TypeError(`${owner}: parameter name "${name}" is repeated`);
    seen.add(name);
  }
  return Object.isFrozen(names) ? names : Object.freeze([...names]);
}
