// OpenRPC in, typed contracts out, and back: each document of `@open-rpc/examples` (and a
// multi-file YAML document with a recursive schema) is generated into a module, type-checked with
// strict settings by the repository's tsc, imported, served by the kit, and its `rpc.discover`
// compared with the source document, both dereferenced.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Contract, StandardSchemaV1 } from '@jsonrpc-kit/core';
import type { OpenRpcOptions } from '@jsonrpc-kit/extensions/openrpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateContractModule, loadDocument } from '../src/index.js';
import { dereference, discover, type Method, meaning } from './meaning.js';
import { compileProject, type Project } from './project.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const examplesDir = join(
  packageDir,
  'node_modules',
  '@open-rpc',
  'examples',
  'build',
  'service-descriptions',
);
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const treesPath = join(packageDir, 'test', 'fixtures', 'trees', 'openrpc.yaml');

/** Where each generated module came from, by module file name. */
const sources = new Map<string, Record<string, unknown>>();
let project: Project;

const USE_TREES = `import type { Client } from '@jsonrpc-kit/client';
import type { ParamsInput, ResultOutput } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import { contract, type Node, type Shape } from './trees.js';

const area = (shape: Shape): number =>
  shape.kind === 'circle' ? Math.PI * shape.radius ** 2 : shape.side ** 2;
const count = (node: Node): number => 1 + node.children.reduce((n, c) => n + count(c), 0);

export const server = createServer();
server.implement(contract, {
  tree_size: ({ tree, depth }) => (depth === undefined ? count(tree) : Math.min(depth, count(tree))),
  shape_area: ([shape]) => area(shape),
  tag: ([id, labels, when]) => {
    id satisfies string;
    labels satisfies ('red' | 'green')[];
    when satisfies string | undefined;
    return true;
  },
  log: ([line]) => {
    line satisfies string | null;
  },
});
server.implement(contract, {
  tree_size: () => 1,
  // @ts-expect-error an area is a number
  shape_area: () => 'big',
  tag: () => true,
  log: () => {},
});

// valibot types a tuple's optional items as present (\`T | undefined\`); the client's contract
// proxy lets callers leave the trailing ones out.
const good: ParamsInput<typeof contract.tag> = ['0x1f', ['red'], undefined, undefined, undefined];
// @ts-expect-error a label outside the enum
const badLabel: ParamsInput<typeof contract.tag> = ['0x1f', ['blue'], undefined, undefined, undefined];
// @ts-expect-error the by-name params need a tree
const noTree: ParamsInput<typeof contract.tree_size> = { depth: 1 };
const size: ResultOutput<typeof contract.tree_size> = 3;
// @ts-expect-error a size is a number
const wrongSize: ResultOutput<typeof contract.tree_size> = 'three';
// @ts-expect-error a square has a side
const notSquare: Shape = { kind: 'square', radius: 1 };
const tree: Node = { label: 'a', children: [{ label: 'b', children: [] }] };
// @ts-expect-error children are nodes
const badTree: Node = { label: 'a', children: [{ label: 'b' }] };
export const values = [good, badLabel, noTree, size, wrongSize, notSquare, tree, badTree];

declare const client: Client;
const api = client.contract(contract);
export async function calls(): Promise<number> {
  const ok: true = await api.tag('0x1f', ['red']);
  // @ts-expect-error a label outside the enum
  await api.tag('0x1f', ['blue']);
  // @ts-expect-error the id is a string
  await api.tag(31, ['red']);
  await api.log(null);
  const area: number = await api.shape_area({ kind: 'circle', radius: 1 });
  // @ts-expect-error a circle has a radius
  await api.shape_area({ kind: 'circle', side: 1 });
  return ok ? area + (await api.tree_size({ tree, depth: 2 })) : 0;
}
`;

const MISUSE = `import type { ParamsInput } from '@jsonrpc-kit/core';
import { contract } from './trees.js';

export const wrong: ParamsInput<typeof contract.tag> = [42, ['red']];
`;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const file of examples) {
    const document = JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
    const name = file.replace(/-openrpc\.json$/, '').replace(/-/g, '_') + '.ts';
    sources.set(name, document);
    files[name] = generateContractModule(document, { source: `@open-rpc/examples/${file}` });
  }
  const trees = await loadDocument(treesPath);
  sources.set('trees.ts', trees as Record<string, unknown>);
  files['trees.ts'] = generateContractModule(trees, { source: 'trees/openrpc.yaml' });
  files['use_trees.ts'] = USE_TREES;
  files['misuse.ts'] = MISUSE;
  project = await compileProject(files);
}, 150_000);

afterAll(() => project?.remove());

function valid(schema: unknown, value: unknown): boolean {
  const result = (schema as StandardSchemaV1)['~standard'].validate(value);
  if (result instanceof Promise) throw new Error('asynchronous schema');
  return result.issues === undefined;
}

describe('generated contracts', () => {
  it('covers every document of @open-rpc/examples', () => {
    expect(examples).toContain('simple-math-openrpc.json');
    expect(examples).toContain('petstore-openrpc.json');
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it('type-check with strict settings', () => {
    const generated = [...sources.keys()];
    for (const name of generated) expect(project.diagnostics.get(name) ?? [], name).toEqual([]);
  });

  it('type handlers and params: wrong types fail to type-check', () => {
    // Every @ts-expect-error of use_trees.ts was needed (an unneeded one is an error too) …
    expect(project.diagnostics.get('use_trees.ts') ?? []).toEqual([]);
    // … and a wrong type without the directive is reported.
    const misuse = project.diagnostics.get('misuse.ts') ?? [];
    expect(misuse.join('\n')).toMatch(/^4:\d+ error TS2322/m);
  });

  for (const file of [...examples.map((f) => f), 'trees'] as const) {
    const name =
      file === 'trees'
        ? 'trees.ts'
        : file.replace(/-openrpc\.json$/, '').replace(/-/g, '_') + '.ts';
    it(`serve rpc.discover equivalent to their source: ${file}`, async () => {
      const module = await project.load(name);
      const served = (await discover(
        module.contract as Contract,
        module.openrpcOptions as OpenRpcOptions,
      )) as Record<string, unknown>;
      expect(served.openrpc).toBe('1.3.2');
      expect(meaning(served)).toEqual(meaning(sources.get(name)!));
    });
  }

  it('accept the examples of their documents', async () => {
    for (const [name, document] of sources) {
      const module = await project.load(name);
      const contract = module.contract as Record<string, Record<string, unknown>>;
      const methods = dereference(document, document.methods) as Method[];
      for (const m of methods) {
        const entry = contract[m.name as string]!;
        for (const example of (m.examples ?? []) as Record<string, unknown>[]) {
          const values = (example.params as { name: string; value: unknown }[]).map((p) => p.value);
          const byName = m.paramStructure === 'by-name';
          const params = byName
            ? Object.fromEntries(
                (example.params as { name: string; value: unknown }[]).map((p) => [
                  p.name,
                  p.value,
                ]),
              )
            : values;
          expect(valid(entry.params, params), `${name} ${m.name} ${example.name}`).toBe(true);
          const result = example.result as { value: unknown } | undefined;
          if (result !== undefined && entry.result !== undefined) {
            expect(valid(entry.result, result.value), `${name} ${m.name} result`).toBe(true);
          }
        }
      }
    }
  });

  it('validate what the schemas say, recursion included', async () => {
    const trees = await project.load('trees.ts');
    const contract = trees.contract as Record<string, Record<string, unknown>>;
    const tree = {
      label: 'a',
      children: [{ label: 'b', children: [], badge: { kind: 'square', side: 2 } }],
    };
    expect(valid(contract.tree_size!.params, { tree })).toBe(true);
    expect(
      valid(contract.tree_size!.params, {
        tree: { label: 'a', children: [{ label: '', children: [] }] },
      }),
    ).toBe(false);
    expect(valid(contract.tree_size!.params, { tree, depth: -1 })).toBe(false);
    expect(valid(trees.Shape, { kind: 'circle', radius: 1 })).toBe(true);
    expect(valid(trees.Shape, { kind: 'circle', radius: 0 })).toBe(false);
    expect(valid(trees.Shape, { kind: 'circle', radius: 1, extra: true })).toBe(false);
    expect(valid(trees.Shape, { kind: 'square', side: 1, extra: true })).toBe(true);
    expect(valid(trees.Shape, { kind: 'triangle' })).toBe(false);
    const tag = contract.tag!.params;
    expect(valid(tag, ['0x1f', ['red', 'green'], '2026-01-02T03:04:05Z', { a: 1 }, [1, 2]])).toBe(
      true,
    );
    expect(valid(tag, ['0x1F', ['red']])).toBe(false);
    expect(valid(tag, ['0x1f', ['red', 'red']])).toBe(false);
    expect(valid(tag, ['0x1f', ['blue']])).toBe(false);
    expect(valid(tag, ['0x1f', ['red'], 'yesterday'])).toBe(false);
    expect(valid(tag, ['0x1f', ['red'], undefined, { a: 'x' }])).toBe(false);
    expect(valid(tag, ['0x1f', ['red'], undefined, undefined, [1, 2, 3]])).toBe(false);
    expect(valid(contract.log!.params, [null])).toBe(true);
    expect(valid(contract.log!.params, [1])).toBe(false);
  });
});

describe('generateContractModule', () => {
  it('gives the same text for the same document', async () => {
    const document = await loadDocument(treesPath);
    const again = await loadDocument(treesPath);
    expect(generateContractModule(again, { source: 'x' })).toBe(
      generateContractModule(document, { source: 'x' }),
    );
  });
});

describe('jsonrpc-kit-openrpc', () => {
  const cli = join(packageDir, 'dist', 'cli.js');
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [cli, ...args],
        { timeout: 30_000 },
        (_e, _o, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });

  it('writes the module of a YAML document, and the same module again', async () => {
    const out = join(project.dir, 'cli', 'trees.ts');
    expect(await run(['generate', treesPath, '--out', out])).toEqual({ code: 0, stderr: '' });
    const first = readFileSync(out, 'utf8');
    expect(first).toContain(`// Source: ${treesPath} (Trees 0.1.0, OpenRPC 1.3.2)`);
    expect(first).toContain('export const contract = defineContract({');
    expect(await run(['generate', treesPath, '--out', out])).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(out, 'utf8')).toBe(first);
  });

  it('exits 2 on a usage error and 1 on a document it cannot read', async () => {
    const usage = await run(['generate', treesPath]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--out is required');
    const missing = await run(['generate', join(project.dir, 'nothing.yaml'), '--out', 'x.ts']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ENOENT');
  });
});
