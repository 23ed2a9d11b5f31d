import { defineContract, method, notification, type StandardSchemaV1 } from '@jsonrpc-kit/core';
import { createServer } from '@jsonrpc-kit/server';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { openRpcMetaSchema, validateJsonSchema } from '../test/openrpc-meta-schema.js';
import { defaultJsonSchemaConverter } from './json-schema.js';
import {
  createOpenRpcDocument,
  describeContract,
  type OpenRpcDocument,
  type OpenRpcMethod,
  openrpc,
} from './openrpc.js';

const info = { title: 'Calculator', version: '1.0.0' };

function calculatorServer() {
  const server = createServer();
  server.method(
    'subtract',
    (p: { minuend: number; subtrahend: number }) => p.minuend - p.subtrahend,
    {
      params: v.object({ minuend: v.number(), subtrahend: v.number() }),
      result: v.number(),
      description: 'Subtracts.',
    },
  );
  server.method('add', ([a, b]: [number, number]) => a + b, {
    params: v.tuple([v.number(), v.number()]),
    result: v.number(),
  });
  server.method('scale', ([x, k]: [number, number]) => x * k, {
    params: v.tuple([v.number(), v.number()]),
    paramNames: ['value', 'factor'],
  });
  server.method('sum', (xs: number[]) => xs.reduce((a, b) => a + b, 0), {
    params: v.array(v.number()),
  });
  server.method('ping', () => 'pong');
  server.method('greet', (p) => p.name, {
    params: v.object({ name: v.string(), title: v.optional(v.string()) }),
    result: v.string(),
  });
  server.notification('log', () => {}, {
    params: v.object({ message: v.string() }),
    description: 'Writes a line.',
  });
  return server;
}

async function discover(server: ReturnType<typeof createServer>): Promise<OpenRpcDocument> {
  const text = await server.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}');
  const answer = JSON.parse(text!) as { result: OpenRpcDocument };
  return answer.result;
}

function byName(doc: OpenRpcDocument, name: string): OpenRpcMethod {
  const found = doc.methods.find((m) => m.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
}

describe('rpc.discover', () => {
  it('answers a document that validates against the OpenRPC meta-schema', async () => {
    const server = calculatorServer();
    openrpc(server, { info, servers: [{ name: 'local', url: 'http://127.0.0.1:8080' }] });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    expect(doc.openrpc).toBe('1.3.2');
    expect(doc.info).toEqual(info);
    expect(doc.servers).toEqual([{ name: 'local', url: 'http://127.0.0.1:8080' }]);
    expect(doc.methods.map((m) => m.name)).toEqual([
      'subtract',
      'add',
      'scale',
      'sum',
      'ping',
      'greet',
      'log',
    ]);
  });

  it('describes by-name methods with their properties, required flags and result', async () => {
    const server = calculatorServer();
    openrpc(server, { info });
    const doc = await discover(server);
    expect(byName(doc, 'subtract')).toEqual({
      name: 'subtract',
      description: 'Subtracts.',
      paramStructure: 'either',
      params: [
        { name: 'minuend', schema: { type: 'number' }, required: true },
        { name: 'subtrahend', schema: { type: 'number' }, required: true },
      ],
      result: { name: 'result', schema: { type: 'number' } },
    });
    const greet = byName(doc, 'greet');
    expect(greet.params.map((p) => [p.name, p.required])).toEqual([
      ['name', true],
      ['title', false],
    ]);
  });

  it('describes tuples by position, or either when names are given', async () => {
    const server = calculatorServer();
    openrpc(server, { info });
    const doc = await discover(server);
    const add = byName(doc, 'add');
    expect(add.paramStructure).toBe('by-position');
    expect(add.params).toEqual([
      { name: 'param0', schema: { type: 'number' }, required: true },
      { name: 'param1', schema: { type: 'number' }, required: true },
    ]);
    const scale = byName(doc, 'scale');
    expect(scale.paramStructure).toBe('either');
    expect(scale.params.map((p) => p.name)).toEqual(['value', 'factor']);
    expect(scale.result).toEqual({ name: 'result', schema: {} });
  });

  it('keeps a variadic params schema aside and describes schema-free methods', async () => {
    const server = calculatorServer();
    openrpc(server, { info });
    const doc = await discover(server);
    const sum = byName(doc, 'sum');
    expect(sum.params).toEqual([]);
    expect(sum['x-params-schema']).toEqual({ type: 'array', items: { type: 'number' } });
    expect(byName(doc, 'ping')).toEqual({
      name: 'ping',
      paramStructure: 'by-position',
      params: [],
      result: { name: 'result', schema: {} },
    });
  });

  it('marks notifications and gives them no result', async () => {
    const server = calculatorServer();
    openrpc(server, { info });
    const log = byName(await discover(server), 'log');
    expect(log['x-notification']).toBe(true);
    expect('result' in log).toBe(false);
    expect(log.description).toBe('Writes a line.');
  });

  it('hides rpc.* methods unless asked, and reflects later registrations', async () => {
    const server = createServer();
    openrpc(server, { info });
    expect((await discover(server)).methods).toEqual([]);
    server.method('late', () => 1);
    expect((await discover(server)).methods.map((m) => m.name)).toEqual(['late']);

    const other = createServer();
    openrpc(other, { info, includeSystem: true });
    const doc = await discover(other);
    expect(doc.methods.map((m) => m.name)).toEqual(['rpc.discover']);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
  });

  it('lists contract methods registered with a prefix', async () => {
    const calc = defineContract({
      add: method({ params: v.tuple([v.number(), v.number()]), result: v.number() }),
      log: notification({ params: v.object({ message: v.string() }) }),
    });
    const server = createServer();
    server.implement(calc, { add: ([a, b]) => a + b, log: () => {} }, { prefix: 'calc.' });
    openrpc(server, { info });
    const doc = await discover(server);
    expect(doc.methods.map((m) => m.name)).toEqual(['calc.add', 'calc.log']);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
  });

  it('is removed by its disposer, and cannot be registered twice', async () => {
    const server = createServer();
    const remove = openrpc(server, { info });
    expect(() => openrpc(server, { info })).toThrow(TypeError);
    remove();
    const text = await server.handle('{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}');
    expect(JSON.parse(text!).error.code).toBe(-32601);
  });
});

describe('createOpenRpcDocument', () => {
  it('builds a document from a contract without a server', async () => {
    const calc = defineContract({
      divide: method({
        params: v.object({ a: v.number(), b: v.number() }),
        result: v.number(),
        description: 'a / b',
      }),
    });
    const doc = await createOpenRpcDocument(describeContract(calc), { info });
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    expect(doc.methods[0]).toMatchObject({
      name: 'divide',
      paramStructure: 'either',
      description: 'a / b',
    });
    expect('servers' in doc).toBe(false);
  });

  it('uses an injected converter, and "anything" when it gives up', async () => {
    const seen: string[] = [];
    const doc = await createOpenRpcDocument(
      [
        {
          name: 'm',
          kind: 'method',
          params: v.object({ a: v.string() }),
          result: v.string(),
          paramNames: ['a'],
          description: undefined,
        },
      ],
      {
        info,
        converter: (_schema, io) => {
          seen.push(io);
          return io === 'input' ? { type: 'object', properties: { a: { const: 'x' } } } : undefined;
        },
      },
    );
    expect(seen).toEqual(['input', 'output']);
    expect(doc.methods[0]!.params).toEqual([
      { name: 'a', schema: { const: 'x' }, required: false },
    ]);
    expect(doc.methods[0]!.result).toEqual({ name: 'result', schema: {} });
  });

  it('prefers a schema’s Standard JSON Schema export and drops $schema', async () => {
    const calls: unknown[] = [];
    const schema = {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: (options: unknown) => {
            calls.push(options);
            return { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' };
          },
          output: () => ({ type: 'string' }),
        },
      },
    } as StandardSchemaV1;
    expect(await defaultJsonSchemaConverter(schema, 'input')).toEqual({ type: 'string' });
    expect(calls).toEqual([{ target: 'draft-07' }]);
  });

  it('uses a toJSONSchema() method, and survives a converter that throws', async () => {
    const base = {
      '~standard': { version: 1, vendor: 'zod', validate: (value: unknown) => ({ value }) },
    };
    const own = {
      ...base,
      toJSONSchema: () => ({ type: 'integer' }),
    } as unknown as StandardSchemaV1;
    expect(await defaultJsonSchemaConverter(own, 'output')).toEqual({ type: 'integer' });
    const broken = {
      ...base,
      toJSONSchema: () => {
        throw new Error('unsupported');
      },
    } as unknown as StandardSchemaV1;
    expect(await defaultJsonSchemaConverter(broken, 'output')).toBeUndefined();
    expect(await defaultJsonSchemaConverter(base as StandardSchemaV1, 'output')).toBeUndefined();
  });

  it('describes valibot schemas it cannot express as "anything" rather than failing', async () => {
    const doc = await createOpenRpcDocument(
      [
        {
          name: 'odd',
          kind: 'method',
          params: v.tuple([v.custom<bigint>((x) => typeof x === 'bigint')]),
          result: v.promise(),
          paramNames: undefined,
          description: undefined,
        },
      ],
      { info },
    );
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
  });
});

describe('the meta-schema validator', () => {
  it('rejects documents that break the meta-schema', () => {
    const good = { openrpc: '1.3.2', info, methods: [{ name: 'a', params: [] }] };
    expect(validateJsonSchema(openRpcMetaSchema, good)).toEqual([]);
    expect(validateJsonSchema(openRpcMetaSchema, { ...good, openrpc: '2.0.0' })).not.toEqual([]);
    expect(validateJsonSchema(openRpcMetaSchema, { openrpc: '1.3.2', methods: [] })).not.toEqual(
      [],
    );
    expect(
      validateJsonSchema(openRpcMetaSchema, { ...good, methods: [{ name: '', params: [] }] }),
    ).not.toEqual([]);
    expect(
      validateJsonSchema(openRpcMetaSchema, {
        ...good,
        methods: [{ name: 'a', params: [], paramStructure: 'positional' }],
      }),
    ).not.toEqual([]);
    expect(
      validateJsonSchema(openRpcMetaSchema, {
        ...good,
        methods: [{ name: 'a', params: [{ name: 'x' }] }],
      }),
    ).not.toEqual([]);
    expect(validateJsonSchema(openRpcMetaSchema, { ...good, extra: 1 })).not.toEqual([]);
    expect(validateJsonSchema(openRpcMetaSchema, { ...good, 'x-extra': 1 })).toEqual([]);
  });
});

describe('metadata', () => {
  it('writes a method’s docs into its method object', async () => {
    const calc = defineContract({
      divide: method({
        params: v.tuple([v.number(), v.number()]),
        result: v.number(),
        paramNames: ['dividend', 'divisor'],
        description: 'Divides.',
        docs: {
          summary: 'a / b',
          tags: [{ name: 'math' }],
          paramStructure: 'by-position',
          params: [
            { name: 'dividend', description: 'what is divided' },
            { name: 'divisor', description: 'not zero', deprecated: false },
          ],
          result: { name: 'quotient', description: 'the quotient' },
          examples: [
            {
              name: 'six by two',
              params: [
                { name: 'dividend', value: 6 },
                { name: 'divisor', value: 2 },
              ],
              result: { name: 'quotient', value: 3 },
            },
          ],
          errors: [{ code: 1, message: 'Division by zero' }],
          deprecated: true,
          externalDocs: { url: 'https://example.com/divide' },
          'x-cost': 1,
        },
      }),
    });
    const server = createServer();
    server.implement(calc, { divide: ([a, b]) => a / b });
    openrpc(server, { info });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    expect(doc.methods[0]).toEqual({
      name: 'divide',
      description: 'Divides.',
      summary: 'a / b',
      tags: [{ name: 'math' }],
      paramStructure: 'by-position',
      params: [
        {
          name: 'dividend',
          description: 'what is divided',
          schema: { type: 'number' },
          required: true,
        },
        {
          name: 'divisor',
          description: 'not zero',
          deprecated: false,
          schema: { type: 'number' },
          required: true,
        },
      ],
      result: { name: 'quotient', description: 'the quotient', schema: { type: 'number' } },
      examples: [
        {
          name: 'six by two',
          params: [
            { name: 'dividend', value: 6 },
            { name: 'divisor', value: 2 },
          ],
          result: { name: 'quotient', value: 3 },
        },
      ],
      errors: [{ code: 1, message: 'Division by zero' }],
      deprecated: true,
      externalDocs: { url: 'https://example.com/divide' },
      'x-cost': 1,
    });
  });

  it('publishes the schemas docs give, and server.method() takes docs too', async () => {
    const server = createServer();
    server.method('get', (p: { id: string }) => ({ id: p.id }), {
      params: v.object({ id: v.string() }),
      docs: {
        params: [{ name: 'id', schema: { $ref: '#/components/schemas/Id' }, required: true }],
        result: { name: 'item', schema: { $ref: '#/components/schemas/Item' } },
      },
    });
    openrpc(server, {
      info,
      components: {
        schemas: {
          Id: { type: 'string', pattern: '^[a-z]+$' },
          Item: { type: 'object', properties: { id: { $ref: '#/components/schemas/Id' } } },
        },
        errors: { NotFound: { code: 404, message: 'Not found' } },
      },
      externalDocs: { url: 'https://example.com' },
    });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    expect(doc.methods[0]!.params).toEqual([
      { name: 'id', schema: { $ref: '#/components/schemas/Id' }, required: true },
    ]);
    expect(doc.methods[0]!.result).toEqual({
      name: 'item',
      schema: { $ref: '#/components/schemas/Item' },
    });
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(['Id', 'Item']);
    expect(doc.components?.errors).toEqual({ NotFound: { code: 404, message: 'Not found' } });
    expect(doc.externalDocs).toEqual({ url: 'https://example.com' });
  });

  it('refers to named schemas with $ref and lists each once in components/schemas', async () => {
    const Pet = v.object({ name: v.string(), tag: v.optional(v.string()) });
    const server = createServer();
    server.method('add_pet', (p) => p.pet, {
      params: v.object({ pet: Pet }),
      result: Pet,
    });
    server.method('list_pets', () => [], { params: v.tuple([]), result: v.array(Pet) });
    openrpc(server, { info, schemas: { Pet } });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    const ref = { $ref: '#/components/schemas/Pet' };
    expect(byName(doc, 'add_pet').params[0]!.schema).toEqual(ref);
    expect(byName(doc, 'add_pet').result!.schema).toEqual(ref);
    expect(byName(doc, 'list_pets').result!.schema).toEqual({ type: 'array', items: ref });
    expect(doc.components?.schemas).toEqual({
      Pet: {
        type: 'object',
        properties: { name: { type: 'string' }, tag: { type: 'string' } },
        required: ['name'],
      },
    });
  });

  it('keeps the definitions of recursive (lazy) schemas in components/schemas', async () => {
    type Tree = { name: string; children: Tree[] };
    const Tree: v.GenericSchema<Tree> = v.object({
      name: v.string(),
      children: v.array(v.lazy(() => Tree)),
    });
    type List = { value: number; next?: List | undefined };
    const List: v.GenericSchema<List> = v.object({
      value: v.number(),
      next: v.optional(v.lazy(() => List)),
    });
    const server = createServer();
    server.method('size', () => 0, { params: v.object({ tree: Tree }), result: v.number() });
    server.method('sum', () => 0, { params: v.object({ list: List }), result: v.number() });
    openrpc(server, { info });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    // Every $ref of the document resolves inside it.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const found of refs) {
      const path = JSON.parse(`{${found}}`).$ref.slice(2).split('/');
      let node: unknown = doc;
      for (const segment of path) node = (node as Record<string, unknown>)?.[segment];
      expect(node, found).toBeTypeOf('object');
    }
    const tree = byName(doc, 'size').params[0]!.schema as { properties: Record<string, unknown> };
    const treeRef = (tree.properties.children as { items: { $ref: string } }).items.$ref;
    const list = byName(doc, 'sum').params[0]!.schema as { properties: Record<string, unknown> };
    const listRef = (list.properties.next as { $ref: string }).$ref;
    // Two recursive schemas whose converter named both "0" do not overwrite each other.
    expect(treeRef).not.toBe(listRef);
  });

  it('publishes servers with variables, and the amend hook has the last word', async () => {
    const server = createServer();
    server.method('ping', () => 'pong');
    openrpc(server, {
      info,
      servers: [
        {
          name: 'regional',
          url: 'https://{region}.example.com',
          variables: { region: { default: 'eu', enum: ['eu', 'us'], description: 'where' } },
        },
      ],
      amend: (document) => ({ ...document, 'x-generated-by': 'test' }) as typeof document,
    });
    const doc = await discover(server);
    expect(validateJsonSchema(openRpcMetaSchema, doc)).toEqual([]);
    expect(doc.servers?.[0]?.variables?.region?.default).toBe('eu');
    expect((doc as unknown as Record<string, unknown>)['x-generated-by']).toBe('test');
  });
});
