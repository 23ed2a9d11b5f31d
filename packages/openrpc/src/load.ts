/**
 * Loading an OpenRPC document from files: JSON or YAML, with `$ref`s to other files bundled in.
 * A schema found in another file becomes a named schema of `components/schemas`; anything else
 * another file holds (a content descriptor, an error) is put in place.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { OpenRpcDocumentInput } from './document.js';
import { identifier } from './names.js';
import { pointerSegments, resolveRef } from './pointer.js';

type Json = { readonly [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a document's text: JSON when it starts with `{`, YAML otherwise (YAML 1.2, of which JSON
 * is a subset, so either parser reads a JSON file).
 *
 * @param text - the text
 * @param name - the file name, for error messages
 * @returns the parsed value
 * @throws SyntaxError when the text is neither
 * @example
 * ```ts
 * parseDocumentText('openrpc: 1.3.2\ninfo: { title: x, version: "1" }\nmethods: []');
 * ```
 */
export function parseDocumentText(text: string, name = 'document'): unknown {
  try {
    return text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SyntaxError(`${name}: ${(error as Error).message}`, { cause: error });
  }
}

/** Keys under which a content descriptor or a schema holds schemas. */
function entersSchema(key: string, inSchema: boolean, path: readonly string[]): boolean {
  if (inSchema) return true;
  if (key === 'schema') return true;
  return path.length === 2 && path[0] === 'components' && path[1] === 'schemas';
}

/**
 * Reads an OpenRPC document from a file (JSON or YAML) and bundles the files its `$ref`s point
 * into: the result refers to nothing outside itself.
 *
 * @param path - the document's file
 * @returns the bundled document
 * @throws SyntaxError when a file is neither JSON nor YAML
 * @throws Error when a file cannot be read or a reference does not resolve
 * @example
 * ```ts
 * const document = await loadDocument('openrpc.yaml');
 * ```
 */
export async function loadDocument(path: string): Promise<OpenRpcDocumentInput> {
  const files = new Map<string, unknown>();
  const read = async (file: string): Promise<unknown> => {
    if (!files.has(file)) files.set(file, parseDocumentText(await readFile(file, 'utf8'), file));
    return files.get(file);
  };
  const rootFile = resolve(path);
  const root = await read(rootFile);
  if (!isObject(root)) throw new TypeError(`${path}: not an OpenRPC document`);
  const hoisted = new Map<string, string>(); // file#pointer → components/schemas name
  const extraSchemas: Record<string, unknown> = {};
  const taken = new Set(Object.keys((root.components as Json | undefined)?.schemas ?? {}));

  const target = (ref: string, file: string): { file: string; fragment: string } => {
    const hash = ref.indexOf('#');
    const location = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '#' : ref.slice(hash);
    if (location === '') {
      // A local reference of another file that it does not hold means the merged document.
      if (file !== rootFile) {
        try {
          resolveRef(files.get(file), fragment);
        } catch {
          return { file: rootFile, fragment };
        }
      }
      return { file, fragment };
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(location)) {
      throw new Error(`${file}: only local and file references are supported, not ${ref}`);
    }
    return { file: resolve(dirname(file), location), fragment };
  };

  const walk = async (
    node: unknown,
    file: string,
    inSchema: boolean,
    path: readonly string[],
  ): Promise<unknown> => {
    if (Array.isArray(node)) {
      return Promise.all(node.map((item) => walk(item, file, inSchema, path)));
    }
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string') {
      const { file: refFile, fragment } = target(node.$ref, file);
      if (refFile === rootFile && file === rootFile) return node;
      if (refFile === rootFile && pointerSegments(fragment)[0] === 'components') {
        return { ...node, $ref: fragment };
      }
      const value = resolveRef(await read(refFile), fragment);
      if (!inSchema) return walk(value, refFile, false, path);
      const id = `${refFile}${fragment}`;
      let name = hoisted.get(id);
      if (name === undefined) {
        const segments = pointerSegments(fragment);
        const base = segments.at(-1) ?? identifier(basename(refFile, extname(refFile)));
        name = base;
        for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
        taken.add(name);
        hoisted.set(id, name);
        extraSchemas[name] = await walk(value, refFile, true, path);
      }
      return { $ref: `#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` };
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      out[key] = await walk(child, file, entersSchema(key, inSchema, path), [...path, key]);
    }
    return out;
  };

  const bundled = (await walk(root, rootFile, false, [])) as Record<string, unknown>;
  if (Object.keys(extraSchemas).length > 0) {
    const components = (bundled.components ?? {}) as Record<string, unknown>;
    const schemas = (components.schemas ?? {}) as Record<string, unknown>;
    bundled.components = { ...components, schemas: { ...schemas, ...extraSchemas } };
  }
  return bundled;
}
