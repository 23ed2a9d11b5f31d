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
