#!/usr/bin/env node
/**
 * `jsonrpc-kit-openrpc generate <document> --out <file.ts>`: writes the contract module of an
 * OpenRPC document, read from one file (its `$ref`s to other files bundled in) or merged from
 * files of methods, schemas and error groups (`--methods`, `--schemas`, `--error-groups`). Exits 1 when the document cannot be read or generated, 2 for a usage error.
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type CliCommand, parseCli, USAGE } from './cli-args.js';
import { generateContractModule } from './generate.js';
import { loadDocument } from './load.js';
import { loadMergedDocument } from './merge.js';

let command: CliCommand;
try {
  command = parseCli(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
try {
  const merging = command.methods.length > 0;
  const document = merging
    ? await loadMergedDocument({
        methods: command.methods,
        schemas: command.schemas,
        errorGroups: command.errorGroups,
        ...(command.document === undefined ? {} : { base: command.document }),
      })
    : await loadDocument(command.document!);
  const inputs = [
    ...(command.document === undefined ? [] : [command.document]),
    ...command.methods.map((p) => `--methods ${p}`),
    ...command.schemas.map((p) => `--schemas ${p}`),
    ...command.errorGroups.map((p) => `--error-groups ${p}`),
  ].join(' ');
  const text = generateContractModule(document, {
    source: merging
      ? [command.document, ...command.methods, ...command.schemas, ...command.errorGroups]
          .filter((p) => p !== undefined)
          .join(', ')
      : command.document!,
    command: `jsonrpc-kit-openrpc generate ${inputs} --out ${command.out}`,
    ...(command.valibot === undefined ? {} : { valibot: command.valibot }),
    ...(command.core === undefined ? {} : { core: command.core }),
  });
  await mkdir(dirname(command.out), { recursive: true });
  await writeFile(command.out, text);
} catch (error) {
  process.stderr.write(`jsonrpc-kit-openrpc: ${(error as Error).message}\n`);
  process.exit(1);
}
