import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

/** Debian's Chromium (package `chromium`); playwright-core never downloads a browser of its own here. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_INSTALL = 'DEBIAN_FRONTEND=noninteractive apt-get install -y chromium';

/**
 * The flags a closed network needs: without the background-networking ones Chromium keeps dialling Google's hosts
 * and its connections are refused, many at a time.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessChromium {
  readonly page: Page;
  /** Every `console.error` and uncaught error of the page, for a failing test's message. */
  readonly errors: string[];
  close(): Promise<void>;
}

/** Chromium, headless, with a fresh profile that `close()` removes. Fails, saying how to install it, when absent. */
export async function headlessChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; as root: ${CHROMIUM_INSTALL} (.ci/run does this)`);
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'rp-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return {
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
