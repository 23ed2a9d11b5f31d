/**
 * One measurement in a fresh process: `node worker.mjs <scenario> <impl> <config-json>`.
 * Prints one JSON line: `{ value, extra? }`, `{ skip }` or `{ error }`.
 */
import { NotBuilt } from './common.mjs';
import { SCENARIOS } from './scenarios.mjs';

const [scenarioId, impl, configText] = process.argv.slice(2);

let out;
try {
  const scenario = SCENARIOS.find((s) => s.id === scenarioId);
  if (scenario === undefined) throw new Error(`unknown scenario ${scenarioId}`);
  const result = await scenario.measure(impl, JSON.parse(configText));
  out = result;
} catch (error) {
  out =
    error instanceof NotBuilt
      ? { skip: 'n/a: not built yet', detail: error.message }
      : { error: String(error?.message ?? error).split('\n')[0] };
}
process.stdout.write('\n' + JSON.stringify(out) + '\n', () => process.exit(0));
