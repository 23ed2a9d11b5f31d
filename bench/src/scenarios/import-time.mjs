/**
 * Scenario 11c: import time of each package. Each start is a fresh child (pinned to CPU 1) that
 * `import()`s one module and reports the milliseconds until its exports are there: resolution,
 * reading, compiling and evaluating it and everything it imports at load. The value is the median
 * over `config.starts` starts, after one uncounted start that warms the file system cache.
 *
 * The kit's packages are imported by name, as an application imports them (their `dist`). The
 * dependencies they load (`ws`, `@redis/client`) are the baselines of their group, so "vs raw"
 * is what the kit adds on top of them; the peers are their main server-side entries.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kit, nodeCommand } from '../common.mjs';
import { median } from '../harness.mjs';

const CHILD = fileURLToPath(new URL('../children/import-time.mjs', import.meta.url));

/** What an implementation imports, where its name is not the module's own. */
const SPECIFIERS = { 'MCP SDK server (mcp.js)': '@modelcontextprotocol/sdk/server/mcp.js' };

/** One start: resolves the child's milliseconds. */
function importOnce(specifier) {
  const [cmd, args] = nodeCommand(CHILD, [specifier], 1);
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`import of ${specifier} failed: ${stderr.trim()}`));
      const ms = Number(stdout.trim());
      if (!Number.isFinite(ms)) return reject(new Error(`import of ${specifier}: ${stdout}`));
      resolve(ms);
    });
  });
}

/** Median milliseconds of `config.starts` imports of `impl`'s module, each in a fresh process. */
export async function run(impl, config) {
  const specifier = SPECIFIERS[impl] ?? impl;
  // A kit package not built yet is a skip, not a failure.
  if (specifier.startsWith('@jsonrpc-kit/')) await kit(specifier);
  await importOnce(specifier);
  const runs = [];
  for (let i = 0; i < config.starts; i++) runs.push(await importOnce(specifier));
  return { value: median(runs) };
}
