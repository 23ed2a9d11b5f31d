import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findRedisServer, REDIS_SERVER_INSTALL_HINT } from '@jsonrpc-kit/redis/testing';
import { describe, expect, it } from 'vitest';

const hasRedis = findRedisServer() !== undefined;
if (!hasRedis) console.warn(`${REDIS_SERVER_INSTALL_HINT}: skipped`);

describe.skipIf(!hasRedis)('the cluster example', () => {
  it('runs three processes on one Redis: a message crosses processes, jobs go through the queue', () => {
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const { REDIS_URL: _ignored, ...env } = process.env;
    const result = spawnSync(process.execPath, [main], { encoding: 'utf8', timeout: 12_000, env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^three chat processes: (ws:\/\/127\.0\.0\.1:\d+\/ ?){3}$/m);
    expect(result.stdout).toContain('alice (on a) got "hello from process c" from bob, sent via c');
    expect(result.stdout).toMatch(/job "one two three": 3 words, by process [abc]/);
  });
});
