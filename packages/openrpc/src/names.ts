/**
 * The named schemas of a document: every `components/schemas` entry, plus any other target of a
 * schema `$ref`, each with an identifier for its const and type, the cycles among them, and the
 * order in which their consts can be declared.
 *
 * @module
 */
import { pointerSegments, refsIn, resolveRef } from './pointer.js';
import type { JsonSchema } from './valibot-code.js';

/** One named schema. */
export interface NamedSchema {
  /** The reference that names it (`#/components/schemas/Pet`). */
  readonly ref: string;
  /** The identifier of its const and type. */
  readonly name: string;
  /** The JSON Schema. */
  readonly schema: JsonSchema;
  /** Whether it is part of a cycle of references (its const needs an explicit type). */
  readonly cyclic: boolean;
  /** The names of the same cycle: references to them are deferred. */
  readonly cycle: ReadonlySet<string>;
}

/** The named schemas of a document, in declaration order. */
export interface SchemaNames {
  /** In an order where each const only refers to consts declared before it (or lazily). */
  readonly schemas: readonly NamedSchema[];
  /** The identifier of a reference's target. */
  readonly nameOf: (ref: string) => string;
}

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends ' +
    'false finally for function if import in instanceof new null return super switch this throw ' +
    'true try typeof var void while with yield let static implements interface package private ' +
    'protected public await any boolean number string symbol unknown never object undefined ' +
    'v contract openrpcOptions defineContract method notification JSON Set'
  ).split(' '),
);

/**
 * An identifier for a schema name: invalid characters become `_`, a leading digit or a reserved
 * word gets a `_` prefix.
 *
 * @param name - the name in the document
 * @returns an identifier
 */
export function identifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (id === '' || /^[0-9]/.test(id) || RESERVED.has(id)) id = `_${id}`;
  return id;
}

/**
 * Names every schema reachable by `$ref` from the given roots.
 *
 * @param document - the (bundled) document
 * @param roots - the schemas to start from (params and results)
 * @returns the named schemas and the name lookup
 * @throws Error when a reference does not resolve or is not local
 */
export function nameSchemas(document: unknown, roots: readonly unknown[]): SchemaNames {
  const byRef = new Map<string, { name: string; schema: JsonSchema }>();
  const used = new Set<string>();
  const add = (ref: string): void => {
    if (byRef.has(ref)) return;
    const schema = resolveRef(document, ref) as JsonSchema;
    const base = identifier(pointerSegments(ref).at(-1) ?? 'Root');
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    byRef.set(ref, { name, schema });
  };
  const components = (document as { components?: { schemas?: Record<string, unknown> } }).components
    ?.schemas;
  for (const key of Object.keys(components ?? {})) {
    add(`#/components/schemas/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
  const queue: string[] = [...byRef.keys()];
  for (const root of roots) queue.push(...refsIn(root));
  const walked = new Set<string>();
  while (queue.length > 0) {
    const ref = queue.shift()!;
    if (walked.has(ref)) continue;
    walked.add(ref);
    add(ref);
    queue.push(...refsIn(byRef.get(ref)!.schema));
  }
  const nameOf = (ref: string): string => {
    const found = byRef.get(ref);
    if (found === undefined) throw new Error(`Unresolved reference ${ref}`);
    return found.name;
  };
  const deps = new Map<string, string[]>();
  for (const { name, schema } of byRef.values()) deps.set(name, refsIn(schema).map(nameOf));
  const schemaOf = new Map([...byRef].map(([ref, s]) => [s.name, { ref, schema: s.schema }]));

  // Tarjan's strongly connected components: each comes out after everything it refers to.
  const order: NamedSchema[] = [];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  const visit = (name: string): void => {
    index.set(name, counter);
    low.set(name, counter);
    counter++;
    stack.push(name);
    onStack.add(name);
    for (const dep of deps.get(name) ?? []) {
      if (!index.has(dep)) {
        visit(dep);
        low.set(name, Math.min(low.get(name)!, low.get(dep)!));
      } else if (onStack.has(dep)) {
        low.set(name, Math.min(low.get(name)!, index.get(dep)!));
      }
    }
    if (low.get(name) !== index.get(name)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== name);
    const cycle = new Set(members);
    const cyclic = members.length > 1 || (deps.get(name) ?? []).includes(name);
    for (const m of members.reverse()) {
      const { ref, schema } = schemaOf.get(m)!;
      order.push({ ref, name: m, schema, cyclic, cycle: cyclic ? cycle : new Set() });
    }
  };
  for (const { name } of byRef.values()) if (!index.has(name)) visit(name);
  return { schemas: order, nameOf };
}
