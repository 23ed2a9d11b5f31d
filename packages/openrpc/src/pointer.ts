/**
 * JSON Pointers and local `$ref`s inside one (bundled) OpenRPC document.
 *
 * @module
 */

type Json = { readonly [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The segments of a JSON Pointer in a `$ref` fragment (`#/components/schemas/Pet`).
 *
 * @param ref - a local reference, starting with `#`
 * @returns its segments, unescaped
 * @throws Error when the reference is not local
 */
export function pointerSegments(ref: string): string[] {
  if (!ref.startsWith('#')) throw new Error(`Not a local reference: ${ref}`);
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`Not a JSON Pointer: ${ref}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Resolves a local reference in a document.
 *
 * @param root - the document
 * @param ref - the reference (`#/components/schemas/Pet`)
 * @returns what it points at
 * @throws Error when it points at nothing
 */
export function resolveRef(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const segment of pointerSegments(ref)) {
    if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
    else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else throw new Error(`Unresolved reference ${ref}`);
  }
  if (node === undefined) throw new Error(`Unresolved reference ${ref}`);
  return node;
}

/**
 * Follows a reference object (`{ "$ref": … }`) to what it points at, through chains of them;
 * anything else is returned as it is.
 *
 * @param root - the document
 * @param node - a value of the document
 * @returns the value, dereferenced
 * @throws Error when a reference does not resolve or the chain loops
 */
export function follow<T = unknown>(root: unknown, node: unknown): T {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) throw new Error(`Reference loop at ${node.$ref}`);
    seen.add(node.$ref);
    node = resolveRef(root, node.$ref);
  }
  return node as T;
}

/**
 * Every `$ref` string inside a value (a schema), in document order.
 *
 * @param value - the value to walk
 * @returns the references
 */
export function refsIn(value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
    } else if (isObject(node)) {
      if (typeof node.$ref === 'string') found.push(node.$ref);
      for (const [k, child] of Object.entries(node)) {
        // `const`, `enum`, `default` and `examples` hold data, not schemas.
        if (k !== 'const' && k !== 'enum' && k !== 'default' && k !== 'examples') walk(child);
      }
    }
  };
  walk(value);
  return found;
}
