import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against real Redis and the in-process Kubernetes API simulator; keep them serial per file
// but parallel across files (2 cores). The simulator's workspace package is read from its TypeScript sources, so
// a change to it needs no build before `npx vitest run` (processes the tests spawn use its build, from npm test).
export default defineConfig({
  resolve: {
    alias: { '@rwx/kube-sim': fileURLToPath(new URL('./packages/kube-sim/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
