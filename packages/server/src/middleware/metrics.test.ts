import { InvalidParamsError } from '@jsonrpc-kit/core';
import { describe, expect, it } from 'vitest';
import { createServer } from '../server.js';
import {
  createMetricsRegistry,
  DEFAULT_DURATION_BUCKETS,
  type MetricsRecorder,
  metrics,
  OTHER_METHOD,
} from './metrics.js';

const req = (method: string, id = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params: [] });

describe('metrics middleware', () => {
  it('counts calls, errors by code and calls in flight per method, through a real server', async () => {
    const registry = createMetricsRegistry();
    const server = createServer();
    server.use(metrics({ registry }));
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.method('ok', () => 1);
    server.method('bad', () => {
      throw new InvalidParamsError('no');
    });
    server.method('boom', () => {
      throw new Error('bug');
    });
    server.method('held', () => held.then(() => 'done'));
    await server.handle(req('ok'));
    await server.handle(req('ok', 2));
    await server.handle(req('bad'));
    await server.handle(req('boom'));
    const running = server.handle(req('held'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(registry.snapshot().methods.held).toMatchObject({ inFlight: 1, count: 0 });
    release();
    expect(await running).toBe('{"jsonrpc":"2.0","id":1,"result":"done"}');
    const { methods } = registry.snapshot();
    expect(methods.ok).toMatchObject({ count: 2, errors: 0, inFlight: 0, errorCodes: {} });
    expect(methods.bad).toMatchObject({ count: 1, errors: 1, errorCodes: { '-32602': 1 } });
    expect(methods.boom).toMatchObject({ count: 1, errors: 1, errorCodes: { '-32603': 1 } });
    expect(methods.held).toMatchObject({ count: 1, inFlight: 0 });
  });

  it('never lets a throwing recorder change the answer', async () => {
    const recorder: MetricsRecorder = {
      onStart() {
        throw new Error('down');
      },
      onEnd() {
        throw new Error('down');
      },
    };
    const server = createServer();
    server.use(metrics({ registry: recorder }));
    server.method('ok', () => 1);
    expect(await server.handle(req('ok'))).toBe('{"jsonrpc":"2.0","id":1,"result":1}');
  });
});

describe('createMetricsRegistry', () => {
  it('fills the cumulative histogram by each bucket’s upper bound, inclusive', () => {
    const registry = createMetricsRegistry({ buckets: [1, 10, 100] });
    for (const ms of [0.5, 1, 5, 10, 50, 500]) {
      registry.onStart('m');
      registry.onEnd('m', ms);
    }
    const m = registry.snapshot().methods.m!;
    expect(m.buckets).toEqual([
      { le: 1, count: 2 },
      { le: 10, count: 4 },
      { le: 100, count: 5 },
    ]);
    expect(m.count).toBe(6);
    expect(m.durationSumMs).toBe(566.5);
  });

  it('counts names beyond maxMethods under "other"', () => {
    const registry = createMetricsRegistry({ maxMethods: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'a']) registry.onEnd(name, 1);
    expect(Object.keys(registry.snapshot().methods).sort()).toEqual(['a', 'b', OTHER_METHOD]);
    expect(registry.snapshot().methods.a!.count).toBe(2);
    expect(registry.snapshot().methods[OTHER_METHOD]!.count).toBe(2);
  });

  it('keeps calls in flight across a reset and forgets the rest', () => {
    const registry = createMetricsRegistry();
    registry.onStart('m');
    registry.onStart('n');
    registry.onEnd('n', 3, -32603);
    registry.reset();
    expect(registry.snapshot().methods).toEqual({
      m: expect.objectContaining({ inFlight: 1, count: 0 }),
    });
    registry.onEnd('m', 2);
    expect(registry.snapshot().methods.m).toMatchObject({ inFlight: 0, count: 1 });
  });

  it('renders the Prometheus text format with escaped labels', () => {
    const registry = createMetricsRegistry({ buckets: [5] });
    registry.onStart('a"b\\c\nd');
    registry.onEnd('a"b\\c\nd', 2, -32602);
    const text = registry.toPrometheus('rpc');
    const m = 'a\\"b\\\\c\\nd';
    expect(text).toContain(`rpc_requests_total{method="${m}"} 1\n`);
    expect(text).toContain(`rpc_errors_total{method="${m}",code="-32602"} 1\n`);
    expect(text).toContain(`rpc_in_flight{method="${m}"} 0\n`);
    expect(text).toContain(`rpc_duration_ms_bucket{method="${m}",le="5"} 1\n`);
    expect(text).toContain(`rpc_duration_ms_bucket{method="${m}",le="+Inf"} 1\n`);
    expect(text).toContain(`rpc_duration_ms_sum{method="${m}"} 2\n`);
    expect(text.endsWith('\n')).toBe(true);
    expect(createMetricsRegistry().toPrometheus()).toContain('# TYPE jsonrpc_requests_total');
  });

  it('rejects buckets that are not ascending finite numbers', () => {
    expect(() => createMetricsRegistry({ buckets: [5, 5] })).toThrow(TypeError);
    expect(() => createMetricsRegistry({ buckets: [1, Number.NaN] })).toThrow(TypeError);
    expect(createMetricsRegistry().snapshot().methods).toEqual({});
    expect(DEFAULT_DURATION_BUCKETS.length).toBeGreaterThan(0);
  });
});
