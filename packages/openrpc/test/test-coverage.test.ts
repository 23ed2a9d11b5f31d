// @open-rpc/test-coverage (the OpenRPC project's tool: it calls each method with its documented
// examples and compares the answers) against kit servers implemented from generated contracts,
// over node:http. The document it reads is the one the server publishes (`rpc.discover`).
//
// Its pinned meta-schema (@open-rpc/meta-schema 1.14.9, through @open-rpc/schema-utils-js) still
// refuses `openrpc: 1.3.x`, which the kit publishes: the tool reads a copy whose version field
// says 1.2.6 (nothing else differs). Its examples rule counts an answer that differs from the
// example as valid when the answer still matches the result schema; the rule used here compares
// strictly, so a wrong answer fails. simple-math is implemented; petstore and the eth_ methods of
// the Ethereum execution APIs are answered from their examples (their params still go through the
// generated schemas): 39 of Ethereum's 43 examples pass, the 4 others break the document's own
// schemas and are refused with -32602.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { type Contract, JsonRpcError } from '@jsonrpc-kit/core';
import { openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { type HttpListener, listen } from '@jsonrpc-kit/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateContractModule, loadMergedDocument } from '../src/index.js';
import { dereference, type Method } from './meaning.js';
import { compileProject, type Project } from './project.js';

const require = createRequire(import.meta.url);
const toolPath = require.resolve('@open-rpc/test-coverage');
const coverage = require('@open-rpc/test-coverage').default as (options: {
  openrpcDocument: unknown;
  transport: 'http';
  reporters: object[];
  rules: unknown[];
  only?: string[];
}) => Promise<Call[]>;
/** The tool reads documents with this (the meta-schema check, then dereferencing). */
const { parseOpenRPCDocument } = createRequire(toolPath)('@open-rpc/schema-utils-js') as {
  parseOpenRPCDocument: (text: string) => Promise<Record<string, unknown>>;
};
const ExamplesRule = createRequire(toolPath)('./rules/examples-rule').default as new (options?: {
  only?: string[];
}) => { validateCall(call: Call): Call };

interface Call {
  methodName: string;
  title: string;
  params: unknown;
  result?: unknown;
  expectedResult?: unknown;
  error?: unknown;
  requestError?: unknown;
  valid?: boolean;
  reason?: string;
}

/** A reporter that says nothing (the calls are what `coverage()` returns). */
const quiet = { onBegin() {}, onTestBegin() {}, onTestEnd() {}, onEnd() {} };

/** The examples rule, comparing the answer with the example's result and nothing else. */
class StrictExamplesRule extends ExamplesRule {
  override validateCall(call: Call): Call {
    call.valid = call.error === undefined && isDeepStrictEqual(call.result, call.expectedResult);
    if (!call.valid) {
      call.reason = `expected ${JSON.stringify(call.expectedResult)} but got ${JSON.stringify(
        call.error === undefined ? call.result : { error: call.error },
      )}`;
    }
    return call;
  }
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const examplesDir = join(packageDir, 'node_modules', '@open-rpc', 'examples', 'build');
const fixture = join(packageDir, 'test', 'fixtures', 'execution-apis');
/**
 * Examples of the Ethereum execution APIs that break their own document's schemas: the kit's
 * server refuses their params (-32602), as it should.
 */
const ETH_BAD_EXAMPLES: Record<string, string> = {
  eth_createAccessList:
    'sends `data`, which GenericTransaction (additionalProperties: false) lacks',
  eth_getFilterChanges: "filter id '0x01' breaks uint's pattern (no leading zero)",
  eth_getFilterLogs: "filter id '0x01' breaks uint's pattern (no leading zero)",
  eth_uninstallFilter: "filter id '0x01' breaks uint's pattern (no leading zero)",
};

const MATH_SERVER = `import { openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { createServer, type Server } from '@jsonrpc-kit/server';
import { contract, openrpcOptions } from './simple_math.js';

/** simple-math, implemented: \`off\` makes every answer wrong by that much. */
export function createMathServer(off = 0): Server {
  const server = createServer();
  server.implement(contract, {
    // The document does not say its params are required.
    addition: ([a = 0, b = 0]) => a + b + off,
    subtraction: ([a = 0, b = 0]) => a - b + off,
  });
  openrpc(server, openrpcOptions);
  return server;
}
`;

/**
 * A server implementing every method of a contract by answering its document's examples: the
 * example whose params are the ones received gives the result.
 */
function exampleServer(contract: Contract, source: Record<string, unknown>, options: object) {
  const methods = dereference(source, source.methods) as Method[];
  const handlers: Record<string, (params: unknown) => unknown> = {};
  for (const m of methods) {
    const examples = (m.examples ?? []) as {
      params: { name: string; value: unknown }[];
      result?: { value: unknown };
    }[];
    handlers[m.name as string] = (params) => {
      const given = Array.isArray(params) ? trimEnd(params) : params;
      const found = examples.find((e) => {
        const values = e.params.map((p) => p.value);
        const expected =
          m.paramStructure === 'by-name'
            ? Object.fromEntries(e.params.map((p) => [p.name, p.value]))
            : values;
        return isDeepStrictEqual(JSON.parse(JSON.stringify(given)), expected);
      });
      if (found === undefined) throw new JsonRpcError(-32004, 'No example for these params');
      return found.result?.value;
    };
  }
  const server = createServer();
  server.implement(contract, handlers as never);
  openrpc(server, options as never);
  return server;
}

function trimEnd(values: readonly unknown[]): unknown[] {
  let end = values.length;
  while (end > 0 && values[end - 1] === undefined) end--;
  return values.slice(0, end);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function discover(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}',
    signal: AbortSignal.timeout(10_000),
  });
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

/** The served document as the tool reads it: its version field 1.2.6, its server the listener. */
async function documentForTool(listener: HttpListener): Promise<Record<string, unknown>> {
  const served = await discover(listener.url);
  expect(served.openrpc).toBe('1.3.2');
  await expect(parseOpenRPCDocument(JSON.stringify(served))).rejects.toBeDefined();
  return parseOpenRPCDocument(
    JSON.stringify({ ...served, openrpc: '1.2.6', servers: [{ url: listener.url }] }),
  );
}

async function run(listener: HttpListener, only?: string[]): Promise<Call[]> {
  const document = await documentForTool(listener);
  return withTimeout(
    coverage({
      openrpcDocument: document,
      transport: 'http',
      reporters: [quiet],
      rules: [new StrictExamplesRule(only === undefined ? {} : { only })],
      ...(only === undefined ? {} : { only }),
    }),
    30_000,
  );
}

function expectAllValid(calls: readonly Call[]): void {
  const failed = calls
    .filter((c) => c.valid !== true || c.requestError !== undefined)
    .map((c) => `${c.methodName} ${c.title}: ${c.reason ?? String(c.requestError)}`);
  expect(failed).toEqual([]);
  for (const call of calls) expect(call.result, call.title).toEqual(call.expectedResult);
}

function exampleCount(document: Record<string, unknown>, only?: readonly string[]): number {
  return (document.methods as { name: string; examples?: unknown[] }[])
    .filter((m) => only === undefined || only.includes(m.name))
    .reduce((n, m) => n + (m.examples?.length ?? 0), 0);
}

let project: Project;
const sources: Record<string, Record<string, unknown>> = {};
const listeners: HttpListener[] = [];

async function serve(server: Server): Promise<HttpListener> {
  const listener = await listen(server, { port: 0, host: '127.0.0.1' });
  listeners.push(listener);
  return listener;
}

beforeAll(async () => {
  const read = (file: string) =>
    require(join(examplesDir, 'service-descriptions', file)) as Record<string, unknown>;
  sources.simple_math = read('simple-math-openrpc.json');
  sources.petstore = read('petstore-openrpc.json');
  sources.eth = (await loadMergedDocument({
    base: join(fixture, 'base-doc.json'),
    methods: [join(fixture, 'src', 'eth')],
    schemas: [join(fixture, 'src', 'schemas')],
    errorGroups: [join(fixture, 'src', 'error-groups')],
  })) as Record<string, unknown>;
  const files: Record<string, string> = { 'math_server.ts': MATH_SERVER };
  for (const [name, document] of Object.entries(sources)) {
    files[`${name}.ts`] = generateContractModule(document, { source: name });
  }
  project = await compileProject(files);
}, 150_000);

afterAll(async () => {
  await Promise.all(listeners.map((l) => l.close()));
  project?.remove();
});

describe('@open-rpc/test-coverage', () => {
  it('type-checks the generated modules and the server', () => {
    expect(project.output).toBe('');
  });

  it('passes every example of simple-math against the implemented server', async () => {
    const { createMathServer } = await project.load('math_server.ts');
    const listener = await serve((createMathServer as () => Server)());
    const calls = await run(listener);
    expect(calls.length).toBe(exampleCount(sources.simple_math!));
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expectAllValid(calls);
  });

  it('fails a call whose answer differs from its example', async () => {
    const { createMathServer } = await project.load('math_server.ts');
    const listener = await serve((createMathServer as (off: number) => Server)(1));
    const calls = await run(listener);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.valid, call.title).toBe(false);
      expect(call.reason).toMatch(/^expected \d+ but got \d+$/);
    }
    // The tool's own examples rule accepts the wrong answers: they still match the schema.
    const document = await documentForTool(listener);
    const lenient = await withTimeout(
      coverage({
        openrpcDocument: document,
        transport: 'http',
        reporters: [quiet],
        rules: [new ExamplesRule()],
      }),
      30_000,
    );
    expect(lenient.every((c) => c.valid === true)).toBe(true);
  });

  it('passes every example of petstore against a server answering them', async () => {
    const module = await project.load('petstore.ts');
    const listener = await serve(
      exampleServer(
        module.contract as Contract,
        sources.petstore!,
        module.openrpcOptions as object,
      ),
    );
    const calls = await run(listener);
    expect(calls.length).toBe(exampleCount(sources.petstore!));
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expectAllValid(calls);
  });

  it('passes the examples of the eth_ methods of the Ethereum execution APIs', async () => {
    const module = await project.load('eth.ts');
    const listener = await serve(
      exampleServer(module.contract as Contract, sources.eth!, module.openrpcOptions as object),
    );
    const names = (sources.eth!.methods as { name: string }[]).map((m) => m.name);
    const calls = await run(listener, names);
    expect(calls.length).toBe(exampleCount(sources.eth!));
    expect(calls.length).toBe(43);
    const bad = calls.filter((c) => c.methodName in ETH_BAD_EXAMPLES);
    expect(new Set(bad.map((c) => c.methodName))).toEqual(new Set(Object.keys(ETH_BAD_EXAMPLES)));
    for (const call of bad) {
      expect(call.valid, call.methodName).toBe(false);
      expect((call.error as { code: number }).code, call.methodName).toBe(-32602);
    }
    const good = calls.filter((c) => !(c.methodName in ETH_BAD_EXAMPLES));
    expect(good.length).toBe(39);
    expectAllValid(good);
  });
});
