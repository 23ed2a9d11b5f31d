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

/**
 * The Node built-in modules (`process.moduleLoadList` entries `NativeModule …`) that `code` loads
 * in a fresh process after `setup` ran: what a package costs at start-up beyond a baseline.
 *
 * @param setup - module source run first: the baseline's imports (its first import also loads the
 *   module loader's own modules, which are then not counted)
 * @param code - module source whose loads are counted
 * @returns the entries, in load order
 */
export function builtinsLoadedBy(setup: string, code: string): Promise<unknown> {
  return inFreshProcess(`
    ${setup}
    const before = new Set(process.moduleLoadList);
    ${code}
    const added = process.moduleLoadList.filter((m) => !before.has(m));
    console.log(JSON.stringify(added.filter((m) => m.startsWith('NativeModule '))));
  `);
}
