/**
 * `pnpm bench [--quick] [--only <scenario,...>] [--impl <name,...>] [--reps <n>] [--no-write]`
 */
import { formatReport, runSuite, writeResults } from './harness.mjs';
import { SCENARIOS } from './scenarios.mjs';

const argv = process.argv.slice(2);
const options = { quick: false, write: true };
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  const value = () => {
    const next = argv[++i];
    if (next === undefined) throw new Error(`${arg} needs a value`);
    return next;
  };
  if (arg === '--quick') options.quick = true;
  else if (arg === '--only') options.only = value().split(',');
  else if (arg === '--impl') options.impls = value().split(',');
  else if (arg === '--reps') options.reps = Number(value());
  else if (arg === '--no-write') options.write = false;
  else if (arg === '--list') {
    for (const s of SCENARIOS) console.log(`${s.id}\t${s.impls.map((i) => i.name).join(', ')}`);
    process.exit(0);
  } else if (arg === '--help' || arg === '-h') {
    console.log(
      'usage: pnpm bench [--quick] [--only <scenario,...>] [--impl <name,...>] [--reps <n>] [--no-write] [--list]',
    );
    process.exit(0);
  } else if (arg !== '--') throw new Error(`unknown argument ${arg}`);
}

const started = Date.now();
const results = await runSuite({ ...options, log: (line) => console.error(line) });
const report = formatReport(results, options);
console.log('\n' + report);
if (options.write && !options.only && !options.impls) {
  const { file, unmeasured } = writeResults(results, report);
  if (unmeasured.length > 0) {
    console.error(`(rows that measured nothing:\n  ${unmeasured.join('\n  ')}`);
    console.error(`results/latest.md left as it was; this run's report is results/${file})`);
  }
} else if (options.write) console.error('(partial run: results/latest.md left as it was)');
console.error(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
