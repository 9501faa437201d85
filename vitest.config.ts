import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker's modules instead of importing the app (and compiling
    // PGlite's WebAssembly) afresh each: the suite's CPU time and wall time fall by ~40%. Each
    // file still gets its own database, store namespace and app (test/helpers/context.ts); src
    // keeps its caches in WeakMaps keyed by those, and the tests restore what they stub.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
