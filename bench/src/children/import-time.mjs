/**
 * Import-time child: `import()`s the module named by its argument and prints the milliseconds
 * from the call to the module's exports (its dependencies loaded and evaluated), then exits.
 * Nothing else is loaded before, so the time is what an application pays for that import.
 */
const specifier = process.argv[2];
const start = performance.now();
await import(specifier);
process.stdout.write(`${performance.now() - start}\n`);
