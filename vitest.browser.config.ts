import { defineConfig } from 'vitest/config';

/**
 * Browser journeys: the real app on a loopback port, driven by Debian's Chromium through
 * playwright-core. Each file starts its own server (own database and store), SMTP capture and
 * browser, so two files run at once: the journeys mostly wait on the browser and the network
 * (one at a time kept a core idle about half the run), and two at once halve the suite's time.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
