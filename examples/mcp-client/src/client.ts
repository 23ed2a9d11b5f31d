#!/usr/bin/env node
/**
 * The client the official MCP conformance suite drives: `node dist/client.js <server-url>`, with
 * the scenario in `MCP_CONFORMANCE_SCENARIO` (context JSON in `MCP_CONFORMANCE_CONTEXT`). It does
 * what each scenario asks with `createMcpClient` over Streamable HTTP and exits 0, or prints the
 * error and exits 1.
 *
 * @module
 */
import { runScenario } from './scenarios.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (url === undefined || !/^https?:\/\//.test(url)) {
  process.stderr.write(
    'usage: jsonrpc-kit-mcp-client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)\n',
  );
  process.exit(2);
}
try {
  await runScenario(scenario, url, process.env);
  process.exit(0);
} catch (error) {
  process.stderr.write(
    `${scenario}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
