/**
 * `/api/docs` in Debian's Chromium: Swagger UI renders the document under the page's
 * Content-Security-Policy (every file from this server, no inline script, no eval) without a
 * single CSP violation, and the page refuses to be framed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, needs, requireServices } from '../support/services.js';
import { DESKTOP, launchBrowser, serve, shot, stopServer } from './helpers.js';

test('/api/docs: Swagger UI works under its CSP, and the page cannot be framed', { skip: await needs(chromium) }, async (t) => {
  await requireServices(chromium);
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-docs-'));
  const server = await serve(dataDir);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const page = await browser.newPage({ viewport: DESKTOP, locale: 'en-US' });
  const problems: string[] = [];
  page.on('console', (m) => {
    // a failed load is told by its response below (the browser's own /favicon.ico is no problem)
    if ((m.type() === 'error' && !m.text().startsWith('Failed to load resource')) || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (err) => problems.push(err.message));
  const base = `http://127.0.0.1:${server.http}`;

  const answer = await page.goto(`${base}/api/docs`);
  assert.match(answer?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  assert.equal(answer?.headers()['x-frame-options'], 'DENY');
  // the operations are listed: the bundle ran, fetched the document and drew it
  await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 20_000 });
  assert.ok((await page.locator('.swagger-ui .opblock').count()) > 20, 'every operation is drawn');
  // an operation opens (its styles and icons load)
  await page.locator('.swagger-ui .opblock-summary').first().click();
  await page.locator('.swagger-ui .opblock-body').first().waitFor();
  await shot(page, 'api-docs-1366');
  assert.deepEqual(problems, [], 'no CSP violation and no script error');

  // framed by another page: the browser refuses to show it
  const framing = await browser.newPage();
  const blocked: string[] = [];
  framing.on('console', (m) => blocked.push(m.text()));
  await framing.setContent(`<iframe src="${base}/api/docs"></iframe>`);
  for (let k = 0; k < 100 && !blocked.some((l) => /frame-ancestors|X-Frame-Options|refused to connect/i.test(l)); k++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    blocked.some((l) => /frame-ancestors|X-Frame-Options/i.test(l)),
    `the browser says it refused the frame: ${blocked.join(' | ')}`,
  );
});
