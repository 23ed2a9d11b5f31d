// loadMergedDocument and the bin's merge options on small files written for each case.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMergedDocument, parseCli } from '../src/index.js';

let dir: string;
const write = (path: string, text: string): string => {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-openrpc-merge-'));
  write(
    'methods/b.yaml',
    `- name: zeta
  params: []
  result: { name: n, schema: { $ref: '#/components/schemas/uint' } }
  errors:
    - { code: 2, message: own two }
  error-groups:
    - $ref: '#/components/error-groups/Numbers'
`,
  );
  write(
    'methods/nested/a.yml',
    '- name: alpha\n  params: []\n  result: { name: ok, schema: { type: boolean } }\n',
  );
  write('methods/notes.md', 'not a document');
  write('schemas/base.yaml', 'uint: { type: string, pattern: "^0x[0-9a-f]+$" }\n');
  write('schemas/more.json', '{ "address": { "type": "string" } }');
  write(
    'groups/numbers.yaml',
    'Numbers:\n  range: { min: 1, max: 9 }\n  errors:\n    - { code: 1, message: one }\n    - { code: 2, message: two }\n    - { code: 3, message: three, data: x }\n',
  );
  write('base.json', '{ "openrpc": "1.4.1", "info": { "title": "Merged", "version": "1.0.0" } }');
  write('dup/one.yaml', '- name: alpha\n  params: []\n');
  write('dupschema/one.yaml', 'uint: { type: string }\n');
  write(
    'badref/m.yaml',
    "- name: m\n  error-groups:\n    - $ref: '#/components/error-groups/Nope'\n",
  );
  write('notalist/m.yaml', 'name: m\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadMergedDocument', () => {
  it('merges methods (sorted), schemas (sorted) and error groups into the base', async () => {
    const document = await loadMergedDocument({
      base: join(dir, 'base.json'),
      methods: [join(dir, 'methods')],
      schemas: [join(dir, 'schemas/more.json'), join(dir, 'schemas/base.yaml')],
      errorGroups: [join(dir, 'groups')],
    });
    expect(document.openrpc).toBe('1.4.1');
    expect(document.info).toEqual({ title: 'Merged', version: '1.0.0' });
    const methods = document.methods as Record<string, unknown>[];
    expect(methods.map((m) => m.name)).toEqual(['alpha', 'zeta']);
    // The method's own errors first; a group's error with a code it already gives is skipped.
    expect(methods[1]!.errors).toEqual([
      { code: 2, message: 'own two' },
      { code: 1, message: 'one' },
      { code: 3, message: 'three', data: 'x' },
    ]);
    expect('error-groups' in methods[1]!).toBe(false);
    expect(Object.keys((document.components as { schemas: object }).schemas)).toEqual([
      'address',
      'uint',
    ]);
  });

  it('gives a default base document', async () => {
    const document = await loadMergedDocument({ methods: [join(dir, 'methods/nested')] });
    expect(document.openrpc).toBe('1.3.2');
    expect(document.info).toEqual({ title: 'OpenRPC document', version: '0.0.0' });
    expect(document.components).toEqual({ schemas: {} });
  });

  it('refuses a method or schema given twice, an unknown group, a file of the wrong kind', async () => {
    await expect(
      loadMergedDocument({ methods: [join(dir, 'methods'), join(dir, 'dup')] }),
    ).rejects.toThrow(/method "alpha" is described twice/);
    await expect(
      loadMergedDocument({
        methods: [join(dir, 'dup')],
        schemas: [join(dir, 'schemas'), join(dir, 'dupschema')],
      }),
    ).rejects.toThrow(/schema "uint" is given twice/);
    await expect(
      loadMergedDocument({ methods: [join(dir, 'badref')], errorGroups: [join(dir, 'groups')] }),
    ).rejects.toThrow(/Method "m": no error group "#\/components\/error-groups\/Nope"/);
    await expect(loadMergedDocument({ methods: [join(dir, 'notalist')] })).rejects.toThrow(
      /not a list of methods/,
    );
    await expect(loadMergedDocument({ methods: [join(dir, 'nothing')] })).rejects.toThrow(/ENOENT/);
  });
});

describe('parseCli', () => {
  it('reads the merge options, repeated, with an optional base document', () => {
    expect(
      parseCli([
        'generate',
        'base.json',
        '--methods',
        'src/eth',
        '--methods',
        'src/debug',
        '--schemas',
        'src/schemas',
        '--error-groups',
        'src/error-groups',
        '--out',
        'eth.ts',
      ]),
    ).toEqual({
      command: 'generate',
      document: 'base.json',
      methods: ['src/eth', 'src/debug'],
      schemas: ['src/schemas'],
      errorGroups: ['src/error-groups'],
      out: 'eth.ts',
      valibot: undefined,
      core: undefined,
    });
    expect(parseCli(['generate', '--methods', 'm', '--out', 'x.ts']).document).toBeUndefined();
  });

  it('refuses merge options that do not go together', () => {
    expect(() => parseCli(['generate', '--out', 'x.ts'])).toThrow('Give exactly one document');
    expect(() => parseCli(['generate', 'a.json', '--schemas', 's', '--out', 'x.ts'])).toThrow(
      '--schemas and --error-groups go with --methods',
    );
    expect(() => parseCli(['generate', 'a', 'b', '--methods', 'm', '--out', 'x.ts'])).toThrow(
      'Give at most one base document',
    );
    expect(() => parseCli(['generate', '--methods'])).toThrow('--methods needs a value');
  });
});
