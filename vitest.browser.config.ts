import { defineConfig } from 'vitest/config';

/**
 * Browser journeys: the real app on a loopback port, driven by Debian's Chromium through
 * playwright-core. One file at a time: each starts a server, an SMTP capture and a browser.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
