import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, managementHeaders } from './support/api.js';

/** Debian's package (installed by scripts/test.sh); playwright-core downloads no browser of its own. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const screenshotDir = fileURLToPath(new URL('../test-results/', import.meta.url));

describe.skipIf(!CHROMIUM)('the operators\' console in headless Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('shows apps and keys, consumer lag, live events and dead letters, and redrives them with its button', async () => {
    const app = await createApp('console-app');
    await createUser(app, 'console-user');
    const group = `users.read-models.chat_users_${inject('databaseSuffix')}`;
    const kafka = new Kafka({ clientId: 'e2e-console', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'chat.users.events', messages: [{ key: 'console', value: JSON.stringify({ poison: 'console' }), headers: { type: 'UserCreated', appId: 'console' } }] });
    await producer.disconnect();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${inject('gatewayUrl')}/console`);
    const { key, secret } = managementHeaders();
    await page.fill('#key', key as string);
    await page.fill('#secret', secret as string);
    await page.click('#connect');

    // Apps and keys.
    const row = page.locator(`#apps tr[data-app="${app.appId}"]`);
    await row.waitFor({ timeout: 20_000 });
    await expect(row.textContent()).resolves.toContain('fullAccess');

    // The lag chart has a bar per consumer group, the services' own among them.
    await page.locator(`#lag-chart g[data-group="${group}"]`).waitFor({ timeout: 20_000 });

    // The live tail of the users topic, filtered to this app, shows its user.
    await page.fill('#tail-app', app.appId);
    await page.locator('#tail-app').dispatchEvent('change');
    await page.locator('#events .event', { hasText: 'UserCreated' }).first().waitFor({ timeout: 20_000 });
    await expect
      .poll(() => page.locator('#events .event').allTextContents(), { timeout: 10_000 })
      .toSatisfy((lines: string[]) => lines.length > 0 && lines.every((line) => line.includes(app.appId)));

    // Dead letters of the users projection, then the redrive button.
    await page.fill('#dlq-group', group);
    await page.click('#dlq-load');
    await page.locator('#dead-letters tr.letter', { hasText: 'no' }).first().waitFor({ timeout: 30_000 });
    await page.click('#dlq-redrive');
    // Polled for its text, so a failure says what the console showed (an error, or "redriven: 0").
    await expect.poll(() => page.locator('#dlq-result').textContent(), { timeout: 60_000 }).toMatch(/redriven: [1-9]/);
    await page.locator('#dead-letters td.redriven', { hasText: 'yes' }).first().waitFor({ timeout: 30_000 });

    mkdirSync(screenshotDir, { recursive: true });
    const screenshot = `${screenshotDir}console.png`;
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`console screenshot: ${screenshot}`);
    const png = readFileSync(screenshot);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // 1400 px wide, as rendered; a blank page compresses to a few KB.
    expect(png.readUInt32BE(16)).toBe(1400);
    expect(png.length).toBeGreaterThan(20_000);
  }, 180_000);
});
