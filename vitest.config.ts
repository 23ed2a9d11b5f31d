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
    globalSetup: ['./scripts/vitest-global-setup.ts'],
  },
});
