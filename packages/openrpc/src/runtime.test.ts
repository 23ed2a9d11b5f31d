import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { createMemoryTransportPair, InvalidParamsError } from '@jsonrpc-kit/core';
import { openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { createServer } from '@jsonrpc-kit/server';
import { describe, expect, it } from 'vitest';
import { meaning } from '../test/meaning.js';
import { loadDocument } from './load.js';
import { contractFromDocument, jsonSchemaValidator, openrpcOptionsOf } from './runtime.js';

const trees = fileURLToPath(new URL('../test/fixtures/trees/openrpc.yaml', import.meta.url));

describe('jsonSchemaValidator', () => {
  const schemas = {
    Node: {
      type: 'object',
      required: ['label', 'children'],
      properties: {
        label: { type: 'string', minLength: 1 },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      },
    },
  };

  it('validates through references to named schemas, recursion included', () => {
    const node = jsonSchemaValidator({ $ref: '#/components/schemas/Node' }, { schemas });
    const validate = (value: unknown) => node['~standard'].validate(value);
    expect(validate({ label: 'a', children: [{ label: 'b', children: [] }] })).toEqual({
      value: { label: 'a', children: [{ label: 'b', children: [] }] },
    });
    const bad = validate({ label: 'a', children: [{ label: '', children: [] }] });
    expect('issues' in bad && bad.issues?.map((i) => i.path)).toContainEqual([
      'children',
      0,
      'label',
    ]);
  });

  it('asserts formats and patterns, and carries its JSON Schema', () => {
    const when = jsonSchemaValidator({ type: 'string', format: 'date-time', pattern: '^2' });
    expect(when['~standard'].validate('2026-01-02T03:04:05Z')).not.toHaveProperty('issues');
    expect(when['~standard'].validate('yesterday')).toHaveProperty('issues');
    expect(when['~standard'].validate('1999-01-02T03:04:05Z')).toHaveProperty('issues');
    expect(when.type).toBe('string');
    const exported = (when['~standard'] as { jsonSchema?: { input: () => unknown } }).jsonSchema;
    expect(exported?.input()).toEqual({ type: 'string', format: 'date-time', pattern: '^2' });
  });
});

describe('contractFromDocument', () => {
  it('serves a document known at run time: validated params, typed errors, its own rpc.discover', async () => {
    const document = await loadDocument(trees);
    const contract = contractFromDocument(document);
    expect(Object.keys(contract)).toEqual(['tree_size', 'shape_area', 'tag', 'log']);
    expect(contract.log!.kind).toBe('notification');
    const server = createServer();
    const lines: unknown[] = [];
    server.implement(contract, {
      tree_size: () => 1,
      shape_area: ([shape]: [{ side: number }]) => shape.side ** 2,
      tag: () => true,
      log: ([line]: [unknown]) => {
        lines.push(line);
      },
    });
    openrpc(server, openrpcOptionsOf(document));
    const [a, b] = createMemoryTransportPair();
    server.connect(b);
    const client = createClient(a);
    try {
      expect(await client.request('shape_area', [{ kind: 'square', side: 3 }])).toBe(9);
      expect(await client.request('shape_area', { shape: { kind: 'square', side: 2 } })).toBe(4);
      await expect(client.request('shape_area', [{ kind: 'triangle' }])).rejects.toBeInstanceOf(
        InvalidParamsError,
      );
      await expect(client.request('tree_size', { tree: { label: '' } })).rejects.toBeInstanceOf(
        InvalidParamsError,
      );
      expect(await client.request('tree_size', { tree: { label: 'a', children: [] } })).toBe(1);
      await expect(client.request('tag', ['0xZZ', ['red']])).rejects.toBeInstanceOf(
        InvalidParamsError,
      );
      const served = (await client.request('rpc.discover')) as Record<string, unknown>;
      expect(meaning(served)).toEqual(meaning(document));
    } finally {
      await client.close();
    }
  });

  it('refuses what is not an OpenRPC document', () => {
    expect(() => contractFromDocument({ methods: [] })).toThrow(TypeError);
    expect(() =>
      contractFromDocument({ openrpc: '1.3.2', methods: [{ name: 'a' }, { name: 'a' }] }),
    ).toThrow(/described twice/);
    expect(() =>
      contractFromDocument({
        openrpc: '1.3.2',
        methods: [{ name: 'a', params: [{ $ref: '#/components/contentDescriptors/X' }] }],
      }),
    ).toThrow(/Unresolved reference/);
  });
});
