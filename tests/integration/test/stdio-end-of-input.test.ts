import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stdioFixture } from './stdio-fixtures/fixture.js';

/** Runs the fixture server with `input` as its whole stdin; resolves with stdout and the exit. */
function pipeThrough(input: string): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [stdioFixture('kit-server.mjs'), 'newline'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the server did not exit within 10 s after its input ended'));
    }, 10_000);
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, code });
    });
    child.stdin.end(input);
  });
}

describe('a stdio server whose input ends (a piped request file)', () => {
  it('answers the calls still running, then exits', async () => {
    const { stdout, code } = await pipeThrough(
      '{"jsonrpc":"2.0","id":1,"method":"sleep","params":[200]}\n' +
        '{"jsonrpc":"2.0","id":2,"method":"add","params":[1,2]}\n' +
        '[{"jsonrpc":"2.0","id":3,"method":"sleep","params":[100]},{"jsonrpc":"2.0","id":4,"method":"add","params":[2,2]}]\n',
    );
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(3);
    expect(lines).toContain('{"jsonrpc":"2.0","id":2,"result":3}');
    expect(lines).toContain('{"jsonrpc":"2.0","id":1,"result":"slept"}');
    expect(lines).toContain(
      '[{"jsonrpc":"2.0","id":3,"result":"slept"},{"jsonrpc":"2.0","id":4,"result":4}]',
    );
    expect(code).toBe(0);
  });

  it('exits at once when nothing runs', async () => {
    const { stdout, code } = await pipeThrough('');
    expect(stdout).toBe('');
    expect(code).toBe(0);
  });
});
