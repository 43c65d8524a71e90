import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against real Redis and the in-process Kubernetes API simulator; keep them serial per file
// but parallel across files. The simulator's workspace package is read from its TypeScript sources, so
// a change to it needs no build before `npx vitest run` (processes the tests spawn use its build, from npm test).
// Three files at a time on 2 cores: Vitest's default (cores - 1) ran one file at a time here, and most files wait on
// I/O (Redis, HTTP, child processes, scaled real-time faults), not on the CPU. Files share nothing but Redis (a
// unique key prefix each) and take ports from test/support/free-port.ts, so any two may run together. A worker keeps
// its loaded modules from one file to the next (isolate: false): loading them again for each of 200 files took
// longer than many files' tests (49 files of test/notify, commands, slack, correlate, detect: 41 s -> 23 s wall); no
// test mocks a module or sets module state another file reads (each builds its own world).
export default defineConfig({
  resolve: {
    alias: { '@rwx/kube-sim': fileURLToPath(new URL('./packages/kube-sim/src/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 3,
    isolate: false,
  },
});
