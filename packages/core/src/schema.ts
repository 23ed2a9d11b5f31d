/**
 * The Standard Schema v1 interface (https://standardschema.dev), as the spec recommends: copied,
 * not depended on. Any library that implements it (valibot, zod, arktype, …) works with the kit.
 *
 * @module
 */

/** A path segment of an issue. */
export interface StandardSchemaPathSegment {
  /** The key of this step of the path. */
  readonly key: PropertyKey;
}

/** One problem a schema found. */
export interface StandardSchemaIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where the problem is, from the root of the value; absent for the root. */
  readonly path?: ReadonlyArray<PropertyKey | StandardSchemaPathSegment> | undefined;
}

/** A schema's verdict: a value, or issues. */
export type StandardSchemaResult<Output> =
  | {
      /** The validated (and possibly transformed) value. */
      readonly value: Output;
      /** Absent on success. */
      readonly issues?: undefined;
    }
  | {
      /** What the schema rejected. */
      readonly issues: ReadonlyArray<StandardSchemaIssue>;
    };

/** The `~standard` member of a schema. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** The version of the Standard Schema interface: `1`. */
  readonly version: 1;
  /** The library that made the schema (`"valibot"`, `"zod"`, …). */
  readonly vendor: string;
  /** Checks a value: its output, or issues; a promise of that for async schemas. */
  readonly validate: (
    value: unknown,
  ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
  /** The input and output types, for inference only (never present at run time). */
  readonly types?:
    | {
        /** The type the schema accepts. */
        readonly input: Input;
        /** The type the schema produces. */
        readonly output: Output;
      }
    | undefined;
}

/** A Standard Schema. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The schema’s Standard Schema interface. */
  readonly '~standard': StandardSchemaProps<Input, Output>;
}

/** The input type of a schema (what the caller sends). */
export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];

/** The output type of a schema (what the receiver gets after validation). */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<
  S['~standard']['types']
>['output'];

/** An issue as it goes on the wire in an error's `data`. */
export interface WireIssue {
  /** Dotted path to the offending value (`""` for the root). */
  readonly path: string;
  /** What is wrong. */
  readonly message: string;
}

/**
 * Validates `value` against `schema`. Synchronous schemas give a synchronous result (no promise
 * on the hot path).
 *
 * @param schema - any Standard Schema
 * @param value - the value to check
 * @returns the schema's verdict, or a promise of it for async schemas
 * @example
 * ```ts
 * const verdict = validate(v.number(), 'x');
 * if (!(verdict instanceof Promise) && verdict.issues) console.log(formatIssues(verdict.issues));
 * ```
 */
export function validate<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
): StandardSchemaResult<InferOutput<S>> | Promise<StandardSchemaResult<InferOutput<S>>> {
  return schema['~standard'].validate(value) as
    | StandardSchemaResult<InferOutput<S>>
    | Promise<StandardSchemaResult<InferOutput<S>>>;
}

/**
 * Turns a schema's issues into plain `{ path, message }` objects for an error's `data`.
 *
 * @param issues - the schema's issues
 * @returns the wire form
 * @example
 * ```ts
 * formatIssues([{ message: 'Expected number', path: ['b'] }]); // [{ path: 'b', message: 'Expected number' }]
 * ```
 */
export function formatIssues(issues: ReadonlyArray<StandardSchemaIssue>): WireIssue[] {
  return issues.map((issue) => ({
    path: (issue.path ?? [])
      .map((segment) =>
        String(typeof segment === 'object' && segment !== null ? segment.key : segment),
      )
      .join('.'),
    message: issue.message,
  }));
}

/**
 * Whether `value` implements Standard Schema v1.
 *
 * @param value - anything
 * @returns `true` for a Standard Schema
 * @example
 * ```ts
 * isStandardSchema(v.string()); // true
 * isStandardSchema({}); // false
 * ```
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { '~standard'?: { validate?: unknown } })['~standard']?.validate === 'function'
  );
}

/**
 * Checks that a schema given at registration is a Standard Schema (or absent), so that a plain
 * object, such as a JSON Schema, is refused where it is given instead of failing every call.
 *
 * @param value - the value given as a schema
 * @param what - what it was given as, for the message (`Method "add": params`)
 * @returns the schema, or `undefined` when none was given
 * @throws TypeError when `value` is neither `undefined` nor a Standard Schema
 * @example
 * ```ts
 * checkSchema(v.number(), 'Method "add": result'); // the schema
 * checkSchema({ type: 'object' }, 'Method "add": params'); // throws TypeError
 * ```
 */
export function checkSchema(value: unknown, what: string): StandardSchemaV1 | undefined {
  if (value === undefined || isStandardSchema(value)) return value;
  const given =
    value === null ? 'null' : typeof value === 'object' ? 'an object without it' : typeof value;
  throw new TypeError(
    `${what} must be a Standard Schema (a valibot, zod, ArkType… schema, with a "~standard" member), got ${given}`,
  );
}
