// The API reference: one TypeDoc site for every published package, from the TSDoc in `src`
// (TypeDoc reads each package's exports map and tsconfig). Warnings fail the build: an export
// without documentation, a link that does not resolve, a type used by the API but not exported.
import { readdirSync, readFileSync } from 'node:fs';

const packages = readdirSync(new URL('../packages', import.meta.url))
  .map((dir) => ({
    dir: `../packages/${dir}`,
    ...JSON.parse(readFileSync(new URL(`../packages/${dir}/package.json`, import.meta.url))),
  }))
  .filter((pkg) => !pkg.private);

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'jsonrpc-kit',
  entryPointStrategy: 'packages',
  entryPoints: packages.map((pkg) => pkg.dir),
  readme: '../README.md',
  // Markdown pages of the site: the guides, each with a `title` and the `Guides` group in its front
  // matter (their code blocks are run by the doc test, tests/integration), and the policies the
  // README links, titled after their first heading (typedoc-plugin-document-titles.mjs).
  projectDocuments: ['guides/*.md', '../POLICIES.md', '../SECURITY.md', '../ROADMAP.md'],
  out: 'site',
  plugin: ['./typedoc-plugin-entry-names.mjs', './typedoc-plugin-document-titles.mjs'],
  includeVersion: false,
  // Source links point at the repository, whatever remotes the local clone has (each package is
  // converted with its own options, so they go in `packageOptions`).
  packageOptions: {
    disableGit: true,
    sourceLinkTemplate: 'https://github.com/jsonrpc-kit/jsonrpc-kit/blob/main/{path}#L{line}',
  },
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: true },
  packagesRequiringDocumentation: packages.map((pkg) => pkg.name),
  treatWarningsAsErrors: true,
  treatValidationWarningsAsErrors: true,
};
