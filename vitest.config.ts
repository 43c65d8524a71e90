import { defineConfig } from 'vitest/config';

// Tests run against real Redis and the in-process Kubernetes API simulator; keep them serial per file
// but parallel across files (2 cores).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
