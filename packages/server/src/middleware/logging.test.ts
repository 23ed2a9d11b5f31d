import { InvalidParamsError } from '@jsonrpc-kit/core';
import { describe, expect, it, vi } from 'vitest';
import { createServer } from '../server.js';
import type { Server } from '../server-types.js';
import { type LogEntry, logging } from './logging.js';

const req = (method: string, params: unknown = {}, id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const note = (method: string, params: unknown = {}): string =>
  JSON.stringify({ jsonrpc: '2.0', method, params });

function logged(options: Parameters<typeof logging>[0] = {}): {
  server: Server;
  entries: LogEntry[];
} {
  const entries: LogEntry[] = [];
  const server = createServer();
  server.use(logging({ sink: (entry) => entries.push(entry), ...options }));
  server.method('ok', () => 'fine');
  server.method('bad', () => {
    throw new InvalidParamsError('bad input');
  });
  server.method('boom', () => {
    throw new Error('secret detail');
  });
  server.notification('note', () => {});
  return { server, entries };
}

describe('logging', () => {
  it('writes one rpc.end entry per call at info, with the transport and the address', async () => {
    const { server, entries } = logged();
    const answer = await server.handle(req('ok', { password: 'hunter2' }, 7), {
      kind: 'http',
      remoteAddress: '192.0.2.1',
    });
    expect(answer).toBe('{"jsonrpc":"2.0","id":7,"result":"fine"}');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'info',
      event: 'rpc.end',
      method: 'ok',
      id: 7,
      notification: false,
      ok: true,
      transport: 'http',
      remoteAddress: '192.0.2.1',
    });
    expect(entries[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // Params may hold secrets: none without `redact`.
    expect('params' in entries[0]!).toBe(false);
    expect(JSON.stringify(entries)).not.toContain('hunter2');
  });

  it('logs a JsonRpcError at warn and an unexpected failure at error, answering as before', async () => {
    const { server, entries } = logged();
    expect(JSON.parse((await server.handle(req('bad')))!).error).toMatchObject({
      code: -32602,
      message: 'bad input',
    });
    expect(JSON.parse((await server.handle(req('boom', {}, 2)))!).error).toEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(entries.map((e) => [e.level, e.ok, e.errorCode, e.errorMessage])).toEqual([
      ['warn', false, -32602, 'bad input'],
      ['error', false, -32603, 'Internal error'],
    ]);
    expect('error' in entries[0]!).toBe(false);
    expect((entries[1]!.error as Error).message).toBe('secret detail');
  });

  it('logs notifications without an id', async () => {
    const { server, entries } = logged();
    expect(await server.handle(note('note'))).toBeUndefined();
    await vi.waitFor(() => expect(entries).toHaveLength(1), { timeout: 2000 });
    expect(entries[0]).toMatchObject({ method: 'note', notification: true, ok: true });
    expect('id' in entries[0]!).toBe(false);
  });

  it('writes rpc.start at debug, params through redact, and filters by level', async () => {
    const debug = logged({ level: 'debug', redact: (p, method) => ({ method, p }) });
    await debug.server.handle(req('ok', { a: 1 }));
    expect(debug.entries.map((e) => [e.level, e.event])).toEqual([
      ['debug', 'rpc.start'],
      ['info', 'rpc.end'],
    ]);
    expect(debug.entries[0]!.params).toEqual({ method: 'ok', p: { a: 1 } });
    const warn = logged({ level: 'warn' });
    await warn.server.handle(req('ok'));
    await warn.server.handle(req('bad'));
    await warn.server.handle(req('boom'));
    expect(warn.entries.map((e) => e.level)).toEqual(['warn', 'error']);
  });

  it('never lets a throwing sink change the answer', async () => {
    const server = createServer();
    server.use(
      logging({
        sink: () => {
          throw new Error('sink down');
        },
      }),
    );
    server.method('ok', () => 1);
    expect(await server.handle(req('ok'))).toBe('{"jsonrpc":"2.0","id":1,"result":1}');
  });

  it('writes one JSON line to stderr by default, the error as its message', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => {
      lines.push(line);
    });
    try {
      const server = createServer();
      server.use(logging());
      server.method('boom', () => {
        throw new Error('secret detail');
      });
      await server.handle(req('boom'));
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      method: 'boom',
      errorCode: -32603,
      error: 'secret detail',
    });
  });
});
