#!/usr/bin/env node
/**
 * `jsonrpc-kit-openrpc generate <document> --out <file.ts>`: writes the contract module of an
 * OpenRPC document. Exits 1 when the document cannot be read or generated, 2 for a usage error.
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type CliCommand, parseCli, USAGE } from './cli-args.js';
import { generateContractModule } from './generate.js';
import { loadDocument } from './load.js';

let command: CliCommand;
try {
  command = parseCli(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
try {
  const document = await loadDocument(command.document);
  const text = generateContractModule(document, {
    source: command.document,
    command: `jsonrpc-kit-openrpc generate ${command.document} --out ${command.out}`,
    ...(command.valibot === undefined ? {} : { valibot: command.valibot }),
    ...(command.core === undefined ? {} : { core: command.core }),
  });
  await mkdir(dirname(command.out), { recursive: true });
  await writeFile(command.out, text);
} catch (error) {
  process.stderr.write(`jsonrpc-kit-openrpc: ${(error as Error).message}\n`);
  process.exit(1);
}
