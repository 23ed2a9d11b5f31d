// The Ethereum execution APIs (fixtures/execution-apis: YAML files of methods, schemas and error
// groups that their build merges into one document) through the generator: the bin merges the
// files with the flags of their Makefile, the module type-checks with strict settings, a kit
// server implemented from it answers viem's typed calls over node:http, and its `rpc.discover`
// says what the merged source says.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { isDeclaredError, JsonRpcError } from '@jsonrpc-kit/core';
import type { Server } from '@jsonrpc-kit/server';
import { createHttpTransport, type HttpListener, listen } from '@jsonrpc-kit/transport-http';
import { createPublicClient, http, InvalidParamsRpcError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadMergedDocument } from '../src/index.js';
import { meaning } from './meaning.js';
import { compileProject, type Project } from './project.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = join(packageDir, 'test', 'fixtures', 'execution-apis');
/** The flags of their Makefile's `SPECFLAGS`, and the base document of their `specgen`. */
const METHODS = ['src/eth', 'src/debug', 'src/txpool', 'src/engine/openrpc/methods', 'src/testing'];
const SCHEMAS = ['src/schemas', 'src/engine/openrpc/schemas'];
const ERROR_GROUPS = ['src/error-groups'];

const ADDRESS = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73';
const FROZEN = '0x00000000000000000000000000000000000000aa';
const KNOWN_TX = '0x02f86c0180843b9aca00';

const USE_ETH = `import { type DeclaredErrorCode, isDeclaredError, JsonRpcError, type ParamsInput, type ResultOutput } from '@jsonrpc-kit/core';
import type { Client } from '@jsonrpc-kit/client';
import { openrpc } from '@jsonrpc-kit/extensions/openrpc';
import { type ContractImplementation, createServer, type Server } from '@jsonrpc-kit/server';
import { type address, contract, openrpcOptions, type uint } from './eth.js';

type Eth = typeof contract;

/** What this node answers; every other method of the contract fails with -32004. */
const answered = {
  eth_blockNumber: () => '0x2377',
  eth_chainId: () => '0x1',
  eth_getBalance: ([account, block]) => {
    account satisfies address;
    block satisfies string | undefined;
    if (account === '${FROZEN}') throw new JsonRpcError(-32005, 'Limit exceeded');
    return account === '${ADDRESS}' ? '0x1cfe56f3795885980000' : '0x0';
  },
  eth_sendRawTransaction: ([raw]) => {
    if (raw === '${KNOWN_TX}') throw new JsonRpcError(1000, 'Already known transaction');
    return '0x' + 'ab'.repeat(32);
  },
} satisfies Partial<ContractImplementation<Eth>>;

export function createEthServer(): Server {
  const server = createServer();
  const unsupported = () => {
    throw new JsonRpcError(-32004, 'Method not supported');
  };
  const rest = Object.fromEntries(Object.keys(contract).map((name) => [name, unsupported]));
  const implementation: ContractImplementation<Eth> = {
    ...(rest as unknown as ContractImplementation<Eth>),
    ...answered,
  };
  server.implement(contract, implementation);
  openrpc(server, openrpcOptions);
  return server;
}

// Wrong types fail to type-check (each directive is needed: an unneeded one is an error).
export const wrong = {
  // @ts-expect-error a balance is a hex string, not a number
  eth_getBalance: () => 5,
} satisfies Partial<ContractImplementation<Eth>>;
// @ts-expect-error an address is a string
export const badParams: ParamsInput<Eth['eth_getBalance']> = [42, 'latest'];
export const goodParams: ParamsInput<Eth['eth_getBalance']> = ['${ADDRESS}', 'latest'];
export const height: ResultOutput<Eth['eth_blockNumber']> = '0x1' satisfies uint;

// Declared errors narrow a rejection: eth_sendRawTransaction declares its error groups' codes.
export const declared: DeclaredErrorCode<Eth['eth_sendRawTransaction']>[] = [1000, -32602, 800];
// @ts-expect-error 4242 is not a declared code
export const undeclared: DeclaredErrorCode<Eth['eth_sendRawTransaction']> = 4242;
// @ts-expect-error eth_blockNumber declares no errors
export const none: DeclaredErrorCode<Eth['eth_blockNumber']> = 1000;

export async function send(client: Client, raw: string): Promise<string> {
  try {
    return await client.contract(contract).eth_sendRawTransaction(raw);
  } catch (error) {
    if (isDeclaredError(contract.eth_sendRawTransaction, error, 1000)) {
      const known: 1000 = error.code;
      return 'known ' + known;
    }
    if (isDeclaredError(contract.eth_sendRawTransaction, error)) {
      // @ts-expect-error 4242 is not one of its codes
      if (error.code === 4242) return 'never';
      return 'declared ' + error.code;
    }
    throw error;
  }
}
`;

let project: Project;
let source: Record<string, unknown>;
let generated: string;
let server: Server;
let listener: HttpListener;

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'jsonrpc-kit-openrpc-eth-'));
  try {
    const flags = [
      ...METHODS.flatMap((p) => ['--methods', p]),
      ...SCHEMAS.flatMap((p) => ['--schemas', p]),
      ...ERROR_GROUPS.flatMap((p) => ['--error-groups', p]),
    ];
    const cli = join(packageDir, 'dist', 'cli.js');
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>(
      (resolve) => {
        const child = execFile(
          process.execPath,
          [cli, 'generate', 'base-doc.json', ...flags, '--out', join(out, 'eth.ts')],
          { cwd: fixture, timeout: 60_000 },
          (_e, _o, stderr) => resolve({ code: child.exitCode, stderr }),
        );
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    generated = readFileSync(join(out, 'eth.ts'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  source = (await loadMergedDocument({
    base: join(fixture, 'base-doc.json'),
    methods: METHODS.map((p) => join(fixture, p)),
    schemas: SCHEMAS.map((p) => join(fixture, p)),
    errorGroups: ERROR_GROUPS.map((p) => join(fixture, p)),
  })) as Record<string, unknown>;
  project = await compileProject({ 'eth.ts': generated, 'use_eth.ts': USE_ETH });
  const use = await project.load('use_eth.ts');
  server = (use.createEthServer as () => Server)();
  listener = await listen(server, { port: 0, host: '127.0.0.1' });
}, 150_000);

afterAll(async () => {
  await listener?.close();
  project?.remove();
});

/** Every method name and schema name the YAML files hold. */
function sourceNames(): { methods: string[]; schemas: string[] } {
  const files = (dirs: string[]) =>
    dirs.flatMap((dir) =>
      readdirSync(join(fixture, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => parseYaml(readFileSync(join(fixture, dir, f), 'utf8')) as unknown),
    );
  return {
    methods: files(METHODS).flatMap((list) => (list as { name: string }[]).map((m) => m.name)),
    schemas: files(SCHEMAS).flatMap((map) => Object.keys(map as object)),
  };
}

describe('the Ethereum execution APIs', () => {
  it('generate one contract entry per method and one named schema per schema of the files', async () => {
    const names = sourceNames();
    const module = await project.load('eth.ts');
    const contract = module.contract as Record<string, unknown>;
    expect(Object.keys(contract).sort()).toEqual([...names.methods].sort());
    expect(names.methods.length).toBe(86);
    expect(names.schemas.length).toBe(124);
    for (const name of names.schemas) {
      // Each schema a method reaches is an exported const; the others are published only.
      if (name in module) expect(typeof module[name], name).toBe('object');
    }
    expect(generated).toContain(
      '// Command: jsonrpc-kit-openrpc generate base-doc.json --methods src/eth',
    );
    // The error groups are resolved into each method's errors, as their build does.
    expect(generated).not.toContain('#/components/error-groups/');
    expect(generated).toContain("{ code: 1000, message: 'Already known transaction' }");
  });

  it('type-check with strict settings, wrong types reported', () => {
    expect(project.diagnostics.get('eth.ts') ?? []).toEqual([]);
    expect(project.diagnostics.get('use_eth.ts') ?? []).toEqual([]);
    expect(project.output).toBe('');
  });

  it('serve rpc.discover equivalent to the merged source', async () => {
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}',
      signal: AbortSignal.timeout(10_000),
    });
    const served = ((await response.json()) as { result: Record<string, unknown> }).result;
    expect((served.methods as unknown[]).length).toBe(86);
    expect(meaning(served)).toEqual(meaning(source));
  });

  it("answer viem's typed calls", async () => {
    const client = createPublicClient({
      transport: http(listener.url, { timeout: 10_000, retryCount: 0 }),
    });
    expect(await client.getBlockNumber()).toBe(0x2377n);
    expect(await client.getChainId()).toBe(1);
    expect(await client.getBalance({ address: ADDRESS })).toBe(0x1cfe56f3795885980000n);
    expect(await client.getBalance({ address: '0x00000000000000000000000000000000000000bb' })).toBe(
      0n,
    );
    // The contract's schemas check what viem sends: an address that is not one is refused.
    const refused = await client
      .request({ method: 'eth_getBalance', params: ['0x12', 'latest'] } as never)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidParamsRpcError);
  });

  it('narrow a rejection to the errors a method declares', async () => {
    const use = await project.load('use_eth.ts');
    const send = use.send as (client: unknown, raw: string) => Promise<string>;
    const client = createClient(createHttpTransport({ url: listener.url }), {
      callTimeout: 10_000,
    });
    try {
      expect(await send(client, KNOWN_TX)).toBe('known 1000');
      expect(await send(client, '0x02')).toBe(`0x${'ab'.repeat(32)}`);
      // -32602 (invalid params) is one of eth_sendRawTransaction's declared codes.
      expect(await send(client, 'not hex')).toBe('declared -32602');
      const api = client.contract(
        (await project.load('eth.ts')).contract as Parameters<typeof client.contract>[0],
      );
      const frozen = await (api as Record<string, (...a: unknown[]) => Promise<unknown>>)
        .eth_getBalance!(FROZEN, 'latest').catch((error: unknown) => error);
      expect(frozen).toBeInstanceOf(JsonRpcError);
      expect((frozen as JsonRpcError).code).toBe(-32005);
      const module = await project.load('eth.ts');
      const contract = module.contract as Record<string, Parameters<typeof isDeclaredError>[0]>;
      expect(isDeclaredError(contract.eth_getBalance!, frozen)).toBe(false);
      expect(isDeclaredError(contract.eth_sendRawTransaction!, frozen)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
