import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renameMethods } from './cases/exchange-case.js';
import { DEFAULT_CONFIG, loadConfig, resolveConfig } from './config.js';

describe('resolveConfig', () => {
  it('completes a partial configuration with the defaults', () => {
    expect(resolveConfig()).toEqual(DEFAULT_CONFIG);
    const config = resolveConfig({
      methods: { subtract: 'minus', crash: null },
      maxBodyBytes: null,
    });
    expect(config.methods).toEqual({ ...DEFAULT_CONFIG.methods, subtract: 'minus', crash: null });
    expect(config.maxBodyBytes).toBeNull();
    expect(config.maxBatchSize).toBe(100);
  });

  it.each([
    [{ methods: { minus: 'x' } }, /methods\.minus is not a role/],
    [{ methods: { subtract: '' } }, /methods\.subtract must be a method name or null/],
    [{ maxBodyBytes: 0 }, /maxBodyBytes must be a positive integer or null/],
    [{ maxBatchSize: 1.5 }, /maxBatchSize must be a positive integer or null/],
    [{ tooLargeCode: '413' }, /tooLargeCode must be an integer/],
    [{ cancellation: ['cancel'] }, /cancellation must list some of/],
    [{ timeoutMs: null }, /timeoutMs must be a positive integer/],
    [[], /must be a JSON object/],
  ])('refuses %j', (input, message) => {
    expect(() => resolveConfig(input as never)).toThrow(message);
  });

  it('loads a JSON file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conformance-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, '{"methods":{"sum":"add"},"cancellation":[]}');
      const config = await loadConfig(file);
      expect(config.methods.sum).toBe('add');
      expect(config.cancellation).toEqual([]);
      await writeFile(file, '{"methods":');
      await expect(loadConfig(file)).rejects.toThrow(/is not JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('renameMethods', () => {
  it("puts the target's names in, keeping every other byte", () => {
    const methods = resolveConfig({
      methods: { subtract: 'calc.minus', notify_hello: null },
    }).methods;
    expect(
      renameMethods(
        '[{"jsonrpc": "2.0", "method": "subtract", "params": {"method": "subtract"}},{"method":"notify_hello"},{"method" :"foo.get"}]',
        methods,
      ),
    ).toBe(
      '[{"jsonrpc": "2.0", "method": "calc.minus", "params": {"method": "calc.minus"}},{"method":"notify_hello"},{"method" :"foo.get"}]',
    );
  });
});
