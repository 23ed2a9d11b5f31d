#!/usr/bin/env node
/**
 * `jsonrpc-conformance`: runs the conformance cases against one target and prints a line per case
 * and a summary (or JSON with `--json`). Exits 1 when a counted case failed (the specification's;
 * the limit and HTTP policy cases too with `--strict`), 2 for a usage error.
 *
 * @module
 */
import { parseCli, USAGE } from './cli-args.js';
import { type ConformanceConfigInput, loadConfig } from './config.js';
import { formatResult, formatSummary } from './report.js';
import { runConformance } from './run.js';
import { killRunningTargets } from './stdio-target.js';

// A stdio target runs in a process group of its own, out of reach of the terminal's Ctrl-C: stop
// it with the tool.
for (const [name, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(name, () => {
    killRunningTargets();
    process.exit(code);
  });
}

async function main(): Promise<number> {
  let request: ReturnType<typeof parseCli>;
  let config: ConformanceConfigInput;
  try {
    request = parseCli(process.argv.slice(2));
    if (request.mode === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    const base: ConformanceConfigInput =
      request.configFile === undefined ? {} : await loadConfig(request.configFile);
    config = {
      ...base,
      ...request.overrides,
      methods: { ...base.methods, ...request.overrides.methods },
    };
  } catch (error) {
    process.stderr.write(`jsonrpc-conformance: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const json = request.json;
  const report = await runConformance({
    target: request.target,
    config,
    only: request.only,
    strict: request.strict,
    onResult: json ? undefined : (result) => process.stdout.write(`${formatResult(result)}\n`),
  }).catch((error: unknown) => {
    process.stderr.write(`jsonrpc-conformance: ${(error as Error)?.message ?? String(error)}\n`);
    return undefined;
  });
  if (report === undefined) return 2;
  process.stdout.write(
    json ? `${JSON.stringify(report, null, 2)}\n` : `\n${formatSummary(report)}\n`,
  );
  return report.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`jsonrpc-conformance: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
