/**
 * Test support shared by the example tests: the first line a spawned server prints (its URL).
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the first line `child` writes to stdout; rejects when it exits first or prints
 * nothing within `timeoutMs`.
 *
 * @param child - a child spawned with `stdio[1] = 'pipe'`
 * @param describe - extra detail for the rejection (its stderr so far, say)
 * @param timeoutMs - how long to wait
 * @returns the line, without its newline
 */
export function firstLine(
  child: ChildProcess,
  describe: () => string = () => '',
  timeoutMs = 10_000,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const detail = (): string => {
      const more = describe();
      return more === '' ? '' : `; ${more}`;
    };
    const timer = setTimeout(() => reject(new Error(`no first line${detail()}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end !== -1) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}${detail()}`));
    });
  });
}
