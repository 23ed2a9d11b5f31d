/**
 * Test support shared by the start-up tests: run a script in a fresh Node process and read what
 * it printed, so that a test can count what a cold process loads.
 */
import { spawn } from 'node:child_process';

/**
 * Runs `script` as an ES module (`node --input-type=module -e script`) in a fresh process and
 * parses what it prints on stdout as JSON. Rejects when the process does not exit with code 0.
 *
 * @param script - the module's source; it ends by printing one JSON value
 * @returns the parsed value
 */
export async function inFreshProcess(script: string): Promise<unknown> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the fresh process exited with ${code}: ${out}`);
  return JSON.parse(out);
}
