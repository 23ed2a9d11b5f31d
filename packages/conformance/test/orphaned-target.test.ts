import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runConformance } from '../src/run.js';
import { quote, runCli } from './support.js';

/**
 * Whether `pid` is gone: no such process, or a zombie (it has exited; an init process that does
 * not reap orphans leaves it in the table).
 */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A target whose shell does not hand over to node (`; exit 0` keeps the shell waiting): a SIGTERM
 * to the shell alone leaves node running, holding the tool's stdout pipe. Node writes its pid to a
 * file and never reads stdin, so it does not exit when its input ends.
 */
describe('a stdio target that would leave a child behind', () => {
  let dir: string;
  let pidFile: string;
  let command: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-orphan-'));
    pidFile = join(dir, 'pid');
    const child = join(dir, 'child.cjs');
    await writeFile(
      child,
      `require('node:fs').writeFileSync(process.argv[2], String(process.pid));\nsetInterval(() => {}, 1000);\n`,
    );
    command = `${quote(process.execPath)} ${quote(child)} ${quote(pidFile)}; exit 0`;
  });
  afterEach(async () => {
    const pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
    if (pid > 0 && !gone(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('runConformance stops the whole process group: the child is gone when the run ends', async () => {
    const started = Date.now();
    const report = await runConformance({
      target: { stdio: command, framing: 'newline' },
      config: { timeoutMs: 1_000 },
      only: ['stdio.exit-on-eof'],
    });
    expect(report.results[0]).toMatchObject({ id: 'stdio.exit-on-eof', status: 'fail' });
    const pid = Number(await waitFor(() => readFile(pidFile, 'utf8'), 1_000));
    expect(gone(pid)).toBe(true);
    // The end of input, a grace period, SIGTERM to the group: well within the case's bounds.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('the command line exits, and leaves no child behind', async () => {
    const started = Date.now();
    const run = await runCli(
      [
        '--stdio',
        command,
        '--framing',
        'newline',
        '--timeout',
        '1000',
        '--only',
        'stdio.exit-on-eof',
      ],
      15_000,
    );
    expect(run.code).toBe(1); // the case failed; a run killed at its deadline has no code
    expect(run.stdout).toMatch(/^FAIL stdio\.exit-on-eof — still running/m);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pid = Number(await waitFor(() => readFile(pidFile, 'utf8'), 1_000));
    expect(gone(pid)).toBe(true);
  }, 30_000);
});
