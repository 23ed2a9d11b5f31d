import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(EXAMPLES, 'demo', 'dist', 'main.js')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the demo (node examples/demo/dist/main.js)', () => {
  it('runs every example over HTTP, WebSocket and stdio and exits 0', async () => {
    const { code, stdout, stderr } = await runDemo();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const name of [
      'calculator-http',
      'chat-ws',
      'eth-api',
      'tools-stdio',
      'lsp-stdio',
      'lsp-ws-proxy',
      'conformance-server',
    ]) {
      expect(stdout).toMatch(new RegExp(`^✔ ${name} \\(\\d+ ms\\)$`, 'm'));
    }
    expect(stdout).not.toContain('✘');
    expect(stdout).toContain('demo: every step passed');
    // Readable exchanges: every request and answer as an arrow line of JSON text.
    const arrows = stdout.split('\n').filter((line) => /^\s+[→←] /.test(line));
    expect(arrows.length).toBeGreaterThan(40);
    for (const line of arrows) expect(() => JSON.parse(line.trim().slice(2))).not.toThrow();
  }, 60_000);
});
