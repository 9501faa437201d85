import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startMailServer, type MailServer } from '../helpers/mail-server.ts';
import { portalBuildIsStale } from '../../scripts/build-state.ts';

const root = resolve(import.meta.dirname, '../..');

/** Where screenshots go: the journeys' own and one per failed test. */
export const SHOTS_DIR = '/tmp/shots';

/** Flags every browser test launches Chromium with. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Builds the portal when portal/dist is missing — or older than portal/src, so a journey never
 * runs against a stale bundle while the portal is being worked on. The server only serves the
 * portal if dist exists when the app is created, so this runs first.
 */
export function ensurePortalBuilt(): void {
  if (!portalBuildIsStale()) return;
  execFileSync('npm', ['run', 'build:portal'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface BrowserHarness {
  server: TestServer;
  /** http://127.0.0.1:<port> — exactly the origin of config.publicUrl, so the CSRF check passes. */
  base: string;
  /** The real SMTP server the app mails to. */
  mail: MailServer;
  browser: Browser;
  /** The current test's own context and page (fresh cookies and storage per test). */
  context: BrowserContext;
  page: Page;
  /** Saves a screenshot of the current page to /tmp/shots/<name>.png and returns the path. */
  shot(name: string, page?: Page): Promise<string>;
}

interface HarnessOptions {
  /** Browser locale of each new context (navigator.language, Accept-Language). */
  locale?: string;
}

/**
 * Registers the suite's hooks: before all, the portal build, a real SMTP server, the real app on a
 * loopback port (fresh database and store) and Chromium; before each test a new browser context;
 * after each, a screenshot when it failed, then the context closes, and an uncaught error in the
 * page fails the test; after all, everything stops.
 * Returns the harness; its fields are set once the hooks have run.
 */
export function useBrowserHarness(options: HarnessOptions = {}): BrowserHarness {
  const harness = {} as BrowserHarness;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    ensurePortalBuilt();
    harness.mail = await startMailServer();
    harness.server = await startTestServer({ smtpUrl: harness.mail.url });
    harness.base = harness.server.base;
    harness.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  beforeEach(async () => {
    harness.context = await harness.browser.newContext({
      baseURL: harness.base,
      locale: options.locale ?? 'en-US',
      viewport: { width: 1024, height: 800 },
    });
    harness.context.setDefaultTimeout(10_000);
    harness.page = await harness.context.newPage();
    pageErrors = [];
    harness.page.on('pageerror', (error) => pageErrors.push(error.message));
    harness.shot = async (name, page = harness.page) => {
      const path = join(SHOTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    };
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && harness.page && !harness.page.isClosed()) {
      const name = `failed-${task.name.replace(/[^\w-]+/g, '-').slice(0, 80)}`;
      const path = await harness.shot(name).catch(() => null);
      if (path) console.error(`screenshot of the failed test "${task.name}": ${path} (page ${harness.page.url()})`);
    }
    await harness.context?.close();
    if (pageErrors.length > 0) throw new Error(`uncaught errors in the page: ${pageErrors.join(' | ')}`);
  });

  afterAll(async () => {
    await harness.browser?.close();
    await harness.server?.close();
    await harness.mail?.close();
  });

  return harness;
}

/**
 * A route at `url` that answers with `fail` only while `failing.on` is set, and lets every other
 * request through. Set it up before the page loads and switch it, rather than calling page.route
 * right before the action and page.unroute after: a route set up just before a key press now and
 * then let that request slip past it on a busy machine (two test files at a time).
 */
export async function failWhileOn(page: Page, url: string, fail: (route: Route) => Promise<void>): Promise<{ on: boolean }> {
  const failing = { on: false };
  await page.route(url, (route) => (failing.on ? fail(route) : route.continue()));
  return failing;
}
