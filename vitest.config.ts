import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run on source: the first condition of every package's exports map.
    conditions: ['@jsonrpc-kit/source'],
  },
  ssr: {
    resolve: { conditions: ['@jsonrpc-kit/source'] },
  },
  test: {
    include: [
      '{src,test}/**/*.test.ts',
      '{packages,examples,tests}/*/{src,test}/**/*.test.ts',
      'bench/test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 15_000,
    hookTimeout: 15_000,
    teardownTimeout: 5_000,
    pool: 'forks',
    // Type tests live in `*.test-d.ts`: tsc checks them (with the whole of tsconfig.test.json) and
    // each `it` passes or fails by the type errors inside it. `*.test.ts` files are only run.
    typecheck: {
      enabled: true,
      checker: 'tsc',
      include: [
        '{src,test}/**/*.test-d.ts',
        '{packages,examples,tests}/*/{src,test}/**/*.test-d.ts',
      ],
      tsconfig: fileURLToPath(new URL('./tsconfig.test.json', import.meta.url)),
    },
    // Absolute, so that package scripts (`--root packages/<name>`) find it too.
    globalSetup: [fileURLToPath(new URL('./scripts/vitest-global-setup.ts', import.meta.url))],
  },
});
