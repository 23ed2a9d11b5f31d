/**
 * Documents split into many files the way the Ethereum execution APIs split theirs: files of
 * methods (each a YAML or JSON list of method objects), files of schemas (each a map of names to
 * JSON Schemas, merged into `components/schemas`) and files of error groups (each a map of group
 * names to `{ errors }`, which methods name in `error-groups`), merged into one document as their
 * build (`tools/specgen`) merges them.
 *
 * @module
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OpenRpcDocumentInput } from './document.js';
import { parseDocumentText } from './load.js';

type Json = { readonly [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What {@link loadMergedDocument} merges: files or folders of each kind, and a base document. */
export interface MergeSources {
  /**
   * Files of methods, or folders of them (read recursively: every `.yaml`, `.yml` and `.json`
   * file, in path order). Each file is a list of method objects.
   */
  readonly methods: readonly string[];
  /**
   * Files of schemas, or folders of them. Each file maps schema names to JSON Schemas; they
   * become the document's `components/schemas` (a name given twice is an error).
   */
  readonly schemas?: readonly string[];
  /**
   * Files of error groups, or folders of them. Each file maps group names to `{ errors }`; a
   * method's `error-groups` (`[{ $ref: '#/components/error-groups/<name>' }]`) is replaced by
   * its errors, added to the method's own `errors` (whose codes win).
   */
  readonly errorGroups?: readonly string[];
  /**
   * The document the methods and schemas are merged into (its `openrpc`, `info`, `servers`,
   * `components`, …): a file, or the parsed document.
   * @default `{ openrpc: '1.3.2', info: { title: 'OpenRPC document', version: '0.0.0' } }`
   */
  readonly base?: string | OpenRpcDocumentInput;
}

const EXTENSIONS = /\.(ya?ml|json)$/i;

/** The files a path names: itself, or the documents under it in path order. */
async function filesOf(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && EXTENSIONS.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function readAll(paths: readonly string[] | undefined): Promise<[string, unknown][]> {
  const out: [string, unknown][] = [];
  for (const path of paths ?? []) {
    for (const file of await filesOf(path)) {
      out.push([file, parseDocumentText(await readFile(file, 'utf8'), file)]);
    }
  }
  return out;
}

const GROUP_REF = '#/components/error-groups/';

/**
 * Merges files of methods, schemas and error groups into one OpenRPC document, as the Ethereum
 * execution APIs' build does (`make build`): the methods sorted by name, the schemas in
 * `components/schemas` sorted by name, each method's `error-groups` replaced by the groups'
 * errors after its own (an error whose code the method already gives is skipped). `$ref`s in
 * the files are read against the merged document (`#/components/schemas/uint`); references to
 * other files are not followed here.
 *
 * @param sources - files or folders of methods, schemas, error groups; the base document
 * @returns the merged document, for {@link generateContractModule}
 * @throws SyntaxError when a file is neither JSON nor YAML
 * @throws TypeError when a file is not of its kind, a method or schema is given twice, or a
 *   method names an error group that no file defines
 * @example
 * ```ts
 * const document = await loadMergedDocument({
 *   methods: ['src/eth'],
 *   schemas: ['src/schemas'],
 *   errorGroups: ['src/error-groups'],
 * });
 * ```
 */
export async function loadMergedDocument(sources: MergeSources): Promise<OpenRpcDocumentInput> {
  const base =
    typeof sources.base === 'string'
      ? parseDocumentText(await readFile(sources.base, 'utf8'), sources.base)
      : (sources.base ?? {
          openrpc: '1.3.2',
          info: { title: 'OpenRPC document', version: '0.0.0' },
        });
  if (!isObject(base)) throw new TypeError('The base document is not an object');

  const methods = new Map<string, Json>();
  for (const method of (base.methods ?? []) as unknown[]) {
    if (isObject(method) && typeof method.name === 'string') methods.set(method.name, method);
  }
  for (const [file, list] of await readAll(sources.methods)) {
    if (!Array.isArray(list)) throw new TypeError(`${file}: not a list of methods`);
    for (const [i, method] of list.entries()) {
      if (!isObject(method) || typeof method.name !== 'string') {
        throw new TypeError(`${file}: method ${i} has no name`);
      }
      if (methods.has(method.name)) {
        throw new TypeError(`${file}: method "${method.name}" is described twice`);
      }
      methods.set(method.name, method);
    }
  }

  const components = isObject(base.components) ? base.components : {};
  const schemas = new Map(Object.entries(isObject(components.schemas) ? components.schemas : {}));
  for (const [file, map] of await readAll(sources.schemas)) {
    if (!isObject(map)) throw new TypeError(`${file}: not a map of schemas`);
    for (const [name, schema] of Object.entries(map)) {
      if (schemas.has(name)) throw new TypeError(`${file}: schema "${name}" is given twice`);
      schemas.set(name, schema);
    }
  }

  const groups = new Map<string, readonly Json[]>();
  for (const [file, map] of await readAll(sources.errorGroups)) {
    if (!isObject(map)) throw new TypeError(`${file}: not a map of error groups`);
    for (const [name, group] of Object.entries(map)) {
      if (groups.has(name)) throw new TypeError(`${file}: error group "${name}" is given twice`);
      const errors = isObject(group) && Array.isArray(group.errors) ? group.errors : undefined;
      if (errors === undefined) throw new TypeError(`${file}: error group "${name}" has no errors`);
      groups.set(name, errors as Json[]);
    }
  }

  const merged = [...methods.keys()].sort().map((name) => {
    const method = methods.get(name)!;
    const refs = method['error-groups'];
    if (refs === undefined) return method;
    if (!Array.isArray(refs)) throw new TypeError(`Method "${name}": error-groups is not a list`);
    const own = (Array.isArray(method.errors) ? method.errors : []) as Json[];
    const codes = new Set(own.map((e) => e.code));
    const errors = [...own];
    for (const ref of refs) {
      const target = isObject(ref) ? ref.$ref : undefined;
      const group =
        typeof target === 'string' && target.startsWith(GROUP_REF)
          ? groups.get(target.slice(GROUP_REF.length))
          : undefined;
      if (group === undefined) {
        throw new TypeError(`Method "${name}": no error group ${JSON.stringify(target ?? ref)}`);
      }
      for (const error of group) {
        if (codes.has(error.code)) continue;
        errors.push(
          error.data === undefined
            ? { code: error.code, message: error.message }
            : { code: error.code, message: error.message, data: error.data },
        );
      }
    }
    const { 'error-groups': _groups, ...rest } = method;
    return { ...rest, errors };
  });

  const sortedSchemas = Object.fromEntries([...schemas].sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    ...base,
    methods: merged,
    components: { ...components, schemas: sortedSchemas },
  };
}
