/**
 * JSON Schema (draft-07, as OpenRPC writes it, with the 2019/2020 spellings it meets in the wild)
 * to valibot code, and to TypeScript types for the schemas that refer to themselves.
 *
 * @module
 */
import { array, arrow, type Code, call, json, object, quote, raw } from './code.js';

/** A JSON Schema: an object, or `true` / `false`. */
export type JsonSchema = boolean | { readonly [key: string]: unknown };

/** What the translation needs to know about named schemas. */
export interface SchemaScope {
  /**
   * The identifier of the named schema a `$ref` points at.
   *
   * @throws Error when the reference does not resolve
   */
  readonly refName: (ref: string) => string;
  /** Whether a reference to this name must be deferred (`v.lazy`): it is part of a cycle. */
  readonly isLazy: (name: string) => boolean;
}

type Schema = { readonly [key: string]: unknown };

const v = (name: string, ...args: Code[]): Code => call(`v.${name}`, ...args);

function pipe(base: Code, actions: Code[]): Code {
  return actions.length === 0 ? base : v('pipe', base, ...actions);
}

const FORMATS: Readonly<Record<string, string>> = {
  email: 'email',
  uuid: 'uuid',
  uri: 'url',
  url: 'url',
  date: 'isoDate',
  'date-time': 'isoTimestamp',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
};

/** A regular expression literal for a JSON Schema `pattern` (ECMA-262, Unicode mode). */
function regex(pattern: string): Code {
  const body = pattern.replace(/\\.|\//g, (m) => (m === '/' ? '\\/' : m));
  return raw(`/${body}/u`);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t) => typeof t === 'string');
  if (isSchema(schema.properties) || schema.additionalProperties !== undefined) return ['object'];
  if (Array.isArray(schema.required) && schema.required.length > 0) return ['object'];
  if (schema.items !== undefined || schema.prefixItems !== undefined) return ['array'];
  return [];
}

function literal(value: unknown): Code {
  if (value === null) return v('null');
  if (typeof value === 'object') {
    const text = JSON.stringify(value);
    return v(
      'custom',
      raw(`(input) => JSON.stringify(input) === ${quote(text)}`),
      raw(quote(`Expected ${text}`)),
    );
  }
  return v('literal', json(value));
}

function stringCode(schema: Schema): Code {
  const actions: Code[] = [];
  if (typeof schema.minLength === 'number') actions.push(v('minLength', json(schema.minLength)));
  if (typeof schema.maxLength === 'number') actions.push(v('maxLength', json(schema.maxLength)));
  if (typeof schema.pattern === 'string') actions.push(v('regex', regex(schema.pattern)));
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format !== undefined) actions.push(v(format));
  return pipe(v('string'), actions);
}

function numberCode(schema: Schema, integer: boolean): Code {
  const actions: Code[] = integer ? [v('integer')] : [];
  const bound = (name: string, value: unknown): void => {
    if (typeof value === 'number') actions.push(v(name, json(value)));
  };
  bound('minValue', schema.minimum);
  bound('maxValue', schema.maximum);
  bound('gtValue', schema.exclusiveMinimum);
  bound('ltValue', schema.exclusiveMaximum);
  bound('multipleOf', schema.multipleOf);
  return pipe(v('number'), actions);
}

function objectCode(schema: Schema, scope: SchemaScope): Code {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
  );
  const entries: [string, Code][] = Object.entries(properties).map(([name, property]) => {
    const code = valibotCode(property as JsonSchema, scope);
    return [name, required.has(name) ? code : v('optional', code)];
  });
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) entries.push([name, v('unknown')]);
  }
  const extra = schema.additionalProperties;
  if (entries.length === 0 && isSchema(extra)) {
    return v('record', v('string'), valibotCode(extra, scope));
  }
  const shape = object(entries);
  if (extra === false) return v('strictObject', shape);
  if (isSchema(extra)) return v('objectWithRest', shape, valibotCode(extra, scope));
  return v('looseObject', shape);
}

function arrayCode(schema: Schema, scope: SchemaScope): Code {
  const prefix = Array.isArray(schema.prefixItems)
    ? (schema.prefixItems as JsonSchema[])
    : Array.isArray(schema.items)
      ? (schema.items as JsonSchema[])
      : undefined;
  const actions: Code[] = [];
  if (typeof schema.minItems === 'number') actions.push(v('minLength', json(schema.minItems)));
  if (typeof schema.maxItems === 'number') actions.push(v('maxLength', json(schema.maxItems)));
  if (schema.uniqueItems === true) {
    actions.push(
      v(
        'check',
        raw('(items) => new Set(items.map((item) => JSON.stringify(item))).size === items.length'),
        raw(quote('Expected unique items')),
      ),
    );
  }
  if (prefix === undefined) {
    const items =
      schema.items === undefined ? v('unknown') : valibotCode(schema.items as JsonSchema, scope);
    return pipe(v('array', items), actions);
  }
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const items = array(
    prefix.map((item, index) => {
      const code = valibotCode(item, scope);
      return index < min ? code : v('optional', code);
    }),
  );
  const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
  const tuple =
    rest === false
      ? v('strictTuple', items)
      : isSchema(rest)
        ? v('tupleWithRest', items, valibotCode(rest, scope))
        : v('looseTuple', items);
  return pipe(tuple, actions);
}

function typedCode(type: string, schema: Schema, scope: SchemaScope): Code {
  switch (type) {
    case 'string':
      return stringCode(schema);
    case 'number':
      return numberCode(schema, false);
    case 'integer':
      return numberCode(schema, true);
    case 'boolean':
      return v('boolean');
    case 'null':
      return v('null');
    case 'object':
      return objectCode(schema, scope);
    case 'array':
      return arrayCode(schema, scope);
    default:
      return v('unknown');
  }
}

function union(options: Code[]): Code {
  if (options.length === 1) return options[0]!;
  const nulls = options.filter((o) => o.kind === 'call' && o.callee === 'v.null');
  if (nulls.length === 1 && options.length === 2) {
    return v('nullable', options.find((o) => !nulls.includes(o))!);
  }
  return v('union', array(options));
}

/**
 * The valibot code of a JSON Schema: `v.*` calls (the module imports valibot as `v`).
 *
 * @param schema - the JSON Schema
 * @param scope - names of the `$ref` targets
 * @returns the code
 * @throws Error when a `$ref` does not resolve
 */
export function valibotCode(schema: JsonSchema, scope: SchemaScope): Code {
  if (schema === true) return v('unknown');
  if (schema === false) return v('never');
  if (typeof schema.$ref === 'string') {
    const name = scope.refName(schema.$ref);
    return scope.isLazy(name) ? v('lazy', arrow(raw(name))) : raw(name);
  }
  const parts: Code[] = [];
  if (schema.const !== undefined) {
    parts.push(literal(schema.const));
  } else if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    parts.push(
      values.length > 0 && values.every((e) => typeof e === 'string')
        ? v('picklist', json(values))
        : union(values.map(literal)),
    );
  } else {
    const types = typesOf(schema);
    if (types.length > 0) parts.push(union(types.map((t) => typedCode(t, schema, scope))));
  }
  const anyOf = (Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf) as
    | JsonSchema[]
    | undefined;
  if (Array.isArray(anyOf)) parts.push(union(anyOf.map((s) => valibotCode(s, scope))));
  if (Array.isArray(schema.oneOf) && Array.isArray(schema.anyOf)) {
    parts.push(union((schema.anyOf as JsonSchema[]).map((s) => valibotCode(s, scope))));
  }
  if (Array.isArray(schema.allOf)) {
    parts.push(...(schema.allOf as JsonSchema[]).map((s) => valibotCode(s, scope)));
  }
  let code =
    parts.length === 0
      ? v('unknown')
      : parts.length === 1
        ? parts[0]!
        : v('intersect', array(parts));
  if (schema.nullable === true) code = v('nullable', code);
  return code;
}

function typedType(type: string, schema: Schema, scope: SchemaScope): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const members = Object.entries(properties).map(([name, property]) => {
        const type = typeCode(property as JsonSchema, scope);
        const k = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : quote(name);
        return required.has(name) ? `${k}: ${type}` : `${k}?: ${type} | undefined`;
      });
      for (const name of required) {
        if (typeof name === 'string' && !Object.hasOwn(properties, name)) {
          members.push(`${quote(name)}: unknown`);
        }
      }
      const extra = schema.additionalProperties;
      if (members.length === 0 && isSchema(extra)) {
        return `{ [key: string]: ${typeCode(extra, scope)} }`;
      }
      const body = members.length === 0 ? '{}' : `{ ${members.join('; ')} }`;
      if (extra === false) return body;
      if (isSchema(extra)) return `${body} & { [key: string]: ${typeCode(extra, scope)} }`;
      return members.length === 0
        ? '{ [key: string]: unknown }'
        : `{ ${members.join('; ')}; [key: string]: unknown }`;
    }
    case 'array': {
      const prefix = Array.isArray(schema.prefixItems)
        ? schema.prefixItems
        : Array.isArray(schema.items)
          ? schema.items
          : undefined;
      if (prefix === undefined) {
        const item =
          schema.items === undefined ? 'unknown' : typeCode(schema.items as JsonSchema, scope);
        return arrayOf(item);
      }
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const items = (prefix as JsonSchema[]).map((item, index) => {
        const type = typeCode(item, scope);
        return index < min ? type : `(${type} | undefined)?`;
      });
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
      if (rest === false) return `[${items.join(', ')}]`;
      const restType = isSchema(rest) ? typeCode(rest, scope) : 'unknown';
      return `[${[...items, `...${arrayOf(restType)}`].join(', ')}]`;
    }
    default:
      return 'unknown';
  }
}

/** A union of types, in parentheses when there is more than one. */
function group(types: readonly string[]): string {
  return types.length === 1 ? types[0]! : `(${types.join(' | ')})`;
}

/** An array type of an item type. */
function arrayOf(item: string): string {
  return /^[A-Za-z0-9_$]+$/.test(item) ? `${item}[]` : `(${item})[]`;
}

function literalType(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? quote(value) : JSON.stringify(value ?? null);
  }
  return 'unknown';
}

/**
 * The TypeScript type a JSON Schema's valibot code infers (as {@link valibotCode} writes it),
 * for the named schemas of a cycle, whose consts need an explicit type.
 *
 * @param schema - the JSON Schema
 * @param scope - names of the `$ref` targets (each has a type of the same name)
 * @returns the type, on one line
 * @throws Error when a `$ref` does not resolve
 */
export function typeCode(schema: JsonSchema, scope: SchemaScope): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') return scope.refName(schema.$ref);
  const parts: string[] = [];
  if (schema.const !== undefined) {
    parts.push(literalType(schema.const));
  } else if (Array.isArray(schema.enum)) {
    parts.push(group((schema.enum as unknown[]).map(literalType)));
  } else {
    const types = typesOf(schema);
    if (types.length > 0) parts.push(group(types.map((t) => typedType(t, schema, scope))));
  }
  const anyOf = (Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf) as
    | JsonSchema[]
    | undefined;
  if (Array.isArray(anyOf)) parts.push(group(anyOf.map((s) => typeCode(s, scope))));
  if (Array.isArray(schema.oneOf) && Array.isArray(schema.anyOf)) {
    parts.push(group((schema.anyOf as JsonSchema[]).map((s) => typeCode(s, scope))));
  }
  if (Array.isArray(schema.allOf)) {
    parts.push(...(schema.allOf as JsonSchema[]).map((s) => typeCode(s, scope)));
  }
  const type =
    parts.length === 0
      ? 'unknown'
      : parts.map((p) => (parts.length > 1 && p.includes(' | ') ? `(${p})` : p)).join(' & ');
  return schema.nullable === true ? `${type} | null` : type;
}
