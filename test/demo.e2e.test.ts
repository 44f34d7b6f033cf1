import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './support/api.js';
import type { TestApp } from './support/api.js';
import { createUsers } from './support/groups.js';
import { authToken } from './support/realtime.js';

/** Debian's package: `npm test` installs it (infra/scripts/prepare.sh chromium); playwright-core downloads none. */
const CHROMIUM = '/usr/bin/chromium';
/**
 * Without the background-networking flags Chromium keeps dialling Google's hosts, which a closed
 * network refuses. playwright's launch gives each browser a new empty profile (--user-data-dir) itself.
 */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const screenshotDir = fileURLToPath(new URL('../test-results/', import.meta.url));
const WAIT = { timeout: 20_000 };

/**
 * The page's own problems: script errors, failed requests and Content-Security-Policy refusals fail
 * the test. The browser's own look for a favicon (the gateway has none) is not the page's.
 */
function watch(page: Page, problems: string[]): void {
  page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    const from = message.location().url;
    if (message.type() === 'error' && !from.endsWith('/favicon.ico')) problems.push(`${from}: ${message.text()}`);
  });
}

async function signIn(page: Page, appId: string, uid: string, token: string): Promise<void> {
  await page.goto(`${inject('gatewayUrl')}/demo`);
  await page.fill('#app-id', appId);
  await page.fill('#uid', uid);
  await page.fill('#auth-token', token);
  await page.click('#login button');
  await page.locator('#status', { hasText: 'live over websocket' }).waitFor(WAIT);
}

// The demo page (ADR 0080) in headless Chromium: two users of one app, each in a browser context of
// their own, chat through the gateway and the realtime service on the real stack.
describe('the demo chat page in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: bash infra/scripts/prepare.sh chromium installs it`);
    app = await createApp('demo page');
    await createUsers(app, 'ann', 'ben');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('two users chat live: unread count, messages, typing, read ticks and presence', async () => {
    const [annToken, benToken] = [await authToken(app, 'ann'), await authToken(app, 'ben')];
    const ann = await (await browser!.newContext({ viewport: { width: 1000, height: 640 } })).newPage();
    const ben = await (await browser!.newContext({ viewport: { width: 1000, height: 640 } })).newPage();
    watch(ann, problems);
    watch(ben, problems);
    await signIn(ben, app.appId, 'ben', benToken);
    await signIn(ann, app.appId, 'ann', annToken);

    // Ann opens a chat with Ben (no conversation yet) and sees him online.
    await ann.fill('#peer', 'ben');
    await ann.click('#new-chat button');
    await ann.locator('#title .dot.online[data-uid="ben"]').waitFor(WAIT);

    // Ann sends; Ben, elsewhere in the app, gets the conversation with an unread count of 1, and
    // receiving it marks it delivered: Ann's tick says so.
    await ann.fill('#text', 'hello ben');
    await ann.click('#send button');
    const annFirst = ann.locator('#messages li.message.mine', { hasText: 'hello ben' });
    await annFirst.waitFor(WAIT);
    const benEntry = ben.locator('#conversations li[data-key="user:ann"]');
    await benEntry.locator('.unread[data-count="1"]').waitFor(WAIT);
    expect(await benEntry.locator('.unread').textContent()).toBe('1');
    await benEntry.locator('.dot.online[data-uid="ann"]').waitFor(WAIT);
    await annFirst.locator('.tick[data-state="delivered"]').waitFor(WAIT);

    // Ben opens it: the message is there, the count is gone, and Ann's tick turns to read.
    await benEntry.click();
    await ben.locator('#messages li.message.theirs', { hasText: 'hello ben' }).waitFor(WAIT);
    await benEntry.locator('.unread[data-count="0"]').waitFor({ state: 'attached', ...WAIT });
    await annFirst.locator('.tick[data-state="read"]').waitFor(WAIT);

    // Ann sends again: Ben sees it arrive live in the open conversation, and it is read at once.
    await ann.fill('#text', 'are you there?');
    await ann.click('#send button');
    await ben.locator('#messages li.message.theirs', { hasText: 'are you there?' }).waitFor(WAIT);
    await ann.locator('#messages li.message.mine', { hasText: 'are you there?' }).locator('.tick[data-state="read"]').waitFor(WAIT);

    // Ben types: Ann sees the indicator (a keystroke at a time until it shows; the client throttles).
    const typing = ann.locator('#typing', { hasText: 'ben is typing' });
    await ben.click('#text');
    for (let i = 0; i < 40 && !(await typing.isVisible()); i++) await ben.keyboard.type('y', { delay: 250 });
    await typing.waitFor({ timeout: 5_000 });

    // Ben's reply ends the indicator and arrives on Ann's side; both still see each other online.
    await ben.fill('#text', 'yes, here');
    await ben.click('#send button');
    await ann.locator('#messages li.message.theirs', { hasText: 'yes, here' }).waitFor(WAIT);
    await ann.locator('#typing:empty').waitFor({ state: 'attached', ...WAIT });
    await ann.locator('#conversations li[data-key="user:ben"] .dot.online').waitFor(WAIT);
    await ben.locator('#title .dot.online[data-uid="ann"]').waitFor(WAIT);
    expect(await ann.locator('#messages li.message').allTextContents()).toEqual([expect.stringContaining('hello ben'), expect.stringContaining('are you there?'), 'yes, here']);

    mkdirSync(screenshotDir, { recursive: true });
    for (const [uid, page] of [['ann', ann], ['ben', ben]] as const) {
      const screenshot = `${screenshotDir}demo-${uid}.png`;
      await page.screenshot({ path: screenshot });
      console.log(`demo screenshot (${uid}): ${screenshot}`);
      const png = readFileSync(screenshot);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(1000);
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('refuses a token of another app on sign-in and shows why', async () => {
    const other = await createApp('demo other');
    await createUsers(other, 'ann');
    const page = await (await browser!.newContext()).newPage();
    await page.goto(`${inject('gatewayUrl')}/demo`);
    await page.fill('#app-id', app.appId);
    await page.fill('#uid', 'ann');
    await page.fill('#auth-token', await authToken(other, 'ann'));
    await page.click('#login button');
    await page.locator('#status', { hasText: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND' }).waitFor(WAIT);
    expect(await page.locator('#chat').isHidden()).toBe(true);
  }, 60_000);
});
