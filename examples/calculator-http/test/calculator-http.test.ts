import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@jsonrpc-kit/client';
import { JsonRpcError } from '@jsonrpc-kit/core';
import { createHttpTransport } from '@jsonrpc-kit/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLine } from '../../../tests/support/first-line.js';
import { createCalculatorServer } from '../src/calculator.js';
import { calculator, DIVISION_BY_ZERO } from '../src/contract.js';
import { curlCommands, run } from '../src/main.js';

const EXAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_JS = join(EXAMPLE_DIR, 'dist', 'server.js');

describe('calculator server (in-process, raw text)', () => {
  const server = createCalculatorServer();
  afterAll(() => server.close());

  it('adds by position', async () => {
    expect(await server.handle('{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":3}',
    );
  });

  it('subtracts by name and by position', async () => {
    expect(
      await server.handle(
        '{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":1}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":1,"result":19}');
    expect(
      await server.handle('{"jsonrpc":"2.0","method":"subtract","params":[23,42],"id":2}'),
    ).toBe('{"jsonrpc":"2.0","id":2,"result":-19}');
  });

  it('answers division by zero with error 1001', async () => {
    const answer = await server.handle(
      '{"jsonrpc":"2.0","method":"divide","params":{"dividend":1,"divisor":0},"id":3}',
    );
    expect(JSON.parse(answer!)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: 1001, message: 'Division by zero', data: { dividend: 1 } },
    });
  });

  it('rejects bad params with -32602', async () => {
    for (const params of ['[1]', '["1",2]', '{"a":1,"b":2}', '[1,2,3]']) {
      const answer = await server.handle(
        `{"jsonrpc":"2.0","method":"add","params":${params},"id":4}`,
      );
      expect(JSON.parse(answer!)).toMatchObject({ id: 4, error: { code: -32602 } });
    }
    const answer = await server.handle(
      '{"jsonrpc":"2.0","method":"divide","params":{"dividend":1},"id":5}',
    );
    expect(JSON.parse(answer!)).toMatchObject({ id: 5, error: { code: -32602 } });
  });
});

describe('node dist/server.js --port 0', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, [SERVER_JS, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await firstLine(child);
  });

  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  it('prints its URL as the first line', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('answers raw HTTP', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}]',
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":3},{"jsonrpc":"2.0","id":2,"result":19}]',
    );
  });

  it('serves the typed client', async () => {
    const client = createClient(createHttpTransport({ url }), { callTimeout: 5_000 });
    try {
      const calc = client.contract(calculator);
      expect(await calc.add(40, 2)).toBe(42);
      await expect(calc.divide({ dividend: 1, divisor: 0 })).rejects.toSatisfy(
        (error: unknown) => error instanceof JsonRpcError && error.code === DIVISION_BY_ZERO,
      );
    } finally {
      await client.close();
    }
  });

  it('exits when asked to stop', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('main: run(log)', () => {
  it('runs the tour and prints the exchanges and curl commands', async () => {
    const lines: string[] = [];
    await run((line) => lines.push(line));
    const text = lines.join('\n');
    expect(text).toContain('→ {"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}');
    expect(text).toContain('← {"jsonrpc":"2.0","id":1,"result":3}');
    expect(text).toContain('"code":1001');
    expect(text).toContain('curl -s');
  });

  it('prints pasteable curl commands', () => {
    const [first] = curlCommands('http://127.0.0.1:8545/');
    expect(first).toBe(
      `curl -s -H 'content-type: application/json' -d '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' http://127.0.0.1:8545/`,
    );
  });
});
