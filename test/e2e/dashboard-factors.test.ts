/**
 * The dashboard's second factors end to end (issue 31, docs/accounts.md "A second factor"): a real
 * `vts serve` child process and Debian's Chromium driven by playwright-core (skipped with one line
 * when it is missing). The owner sets up an authenticator app on the Account page (the QR code and
 * the key; the first code is computed from the key the page shows), gets the ten recovery codes
 * once, and signs in again: the password is not enough, the page asks for the code and signs in
 * with it. Then a passkey is registered with Chromium's virtual authenticator (CDP `WebAuthn`:
 * CTAP2, internal, resident key, user verification) and signs in without password or code. The
 * page is opened at `localhost` (an IP address is no WebAuthn relying party).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { base32Decode, totpCode } from '../../src/core/auth/totp.js';
import { openStore } from '../../src/store/open.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { ARTIFACTS, DESKTOP, launchBrowser, PHONE, serve, shot, stopServer, WEB_BUILD } from './helpers.js';

const SKIP = await needs(chromium);

async function fillSignIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByTestId('login-username').fill('demo');
  await page.getByTestId('login-password').fill('demopass');
  await page.getByTestId('login-submit').click();
}

/** The page at 1366 and 390 px; on the Account page also its Security card alone at 390 px (to look at it closely). */
async function shots(page: Page, name: string): Promise<void> {
  await shot(page, `${name}-1366`);
  await page.setViewportSize(PHONE);
  await shot(page, `${name}-390`);
  const security = page.getByTestId('security');
  if (await security.isVisible()) await security.screenshot({ path: join(ARTIFACTS, `${name}-390-security.png`) });
  await page.setViewportSize(DESKTOP);
}

test('dashboard: an authenticator app (enrol, recovery codes, sign in with the code) and a passkey (register, sign in)', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-factors-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();
  const server = await serve(dataDir);
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = `http://localhost:${server.http}`;
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));

  // --- the authenticator app ---
  await fillSignIn(page, base);
  await page.getByTestId('nav-account').waitFor();
  await page.goto(`${base}/#/account`);
  const status = page.getByTestId('totp-status');
  await page.locator('[data-testid="totp-status"]:text-is("Off")').waitFor();
  await page.getByTestId('security').scrollIntoViewIfNeeded();
  await page.getByTestId('totp-begin').click();
  const secretEl = page.getByTestId('totp-secret');
  await secretEl.waitFor();
  const secret = (await secretEl.getAttribute('data-secret'))!;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal((await secretEl.textContent())!.replace(/\s/g, ''), secret, 'the key is shown in text');
  await page.locator('[data-testid="totp-qr"][src^="data:image/png"]').waitFor();
  const key = base32Decode(secret)!;
  await shots(page, 'factors-1-totp-enrol');

  // a wrong code is refused in place, the right one turns it on and shows the codes once
  await page.getByTestId('totp-confirm-code').fill(totpCode(key, Date.now()) === '000000' ? '111111' : '000000');
  await page.getByTestId('totp-confirm').click();
  await page.locator('.security .message.error').waitFor();
  assert.match((await page.locator('.security .message.error').textContent())!, /wrong or was used/);
  await page.getByTestId('totp-confirm-code').fill(totpCode(key, Date.now()));
  await page.getByTestId('totp-confirm').click();
  const codes = page.getByTestId('totp-recovery-codes').locator('li');
  await codes.first().waitFor();
  assert.equal(await codes.count(), 10);
  assert.equal(await status.textContent(), 'On');
  await shots(page, 'factors-2-recovery-codes');
  await page.getByTestId('totp-codes-done').click();
  await page.getByTestId('totp-disable-code').waitFor();
  assert.equal(await page.getByTestId('totp-recovery-codes').count(), 0, 'the codes are not shown again');

  // signing in again: the password alone is not enough; the code of the next step is taken
  await page.getByTestId('signout').click();
  await page.getByTestId('login-username').waitFor();
  await fillSignIn(page, base);
  await page.getByTestId('login-code-step').waitFor();
  assert.equal(await page.getByTestId('nav-account').isVisible(), false);
  await shots(page, 'factors-3-sign-in-code');
  assert.equal(await page.getByTestId('login-use-recovery').isVisible(), true, 'a recovery code is offered');
  // the step after the confirming one (the window takes one step ahead): never the used step
  await page.getByTestId('login-code').fill(totpCode(key, Date.now() + 30_000));
  await page.getByTestId('login-submit').click();
  await page.getByTestId('nav-account').waitFor({ timeout: 15_000 });

  // --- a passkey, with Chromium's virtual authenticator ---
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await page.goto(`${base}/#/account`);
  await page.getByTestId('passkey-list').locator('text=No passkeys yet.').waitFor();
  await page.getByTestId('passkey-name').fill('Test laptop');
  await page.getByTestId('passkey-add').click();
  const row = page.getByTestId('passkey-row');
  await row.first().waitFor();
  assert.match((await row.first().textContent())!, /Test laptop/);
  await page.getByTestId('security').scrollIntoViewIfNeeded();
  await shots(page, 'factors-4-passkey-added');

  // the API password toggle (its end-to-end effect is in test/http/web-api/account-factors.test.ts)
  const toggle = page.getByTestId('api-passwords');
  assert.equal(await toggle.isChecked(), true);
  await toggle.uncheck();
  await page.locator('.security .message.success:has-text("need an API token")').waitFor();
  const refused = await fetch(`http://127.0.0.1:${server.http}/api/vehicles?username=demo&password=demopass`);
  assert.equal(refused.status, 401, 'API password logins are off');

  // signed out, the passkey signs in: no password, no code
  await page.getByTestId('signout').click();
  await page.getByTestId('login-username').waitFor();
  await shots(page, 'factors-5-sign-in-page');
  await page.getByTestId('login-passkey').click();
  await page.getByTestId('nav-account').waitFor({ timeout: 15_000 });
  await page.goto(`${base}/#/account`);
  await page.locator('[data-testid="passkey-row"]:has-text("last used")').waitFor();

  // removing it
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('passkey-remove').click();
  await page.getByTestId('passkey-list').locator('text=No passkeys yet.').waitFor();
  assert.deepEqual(errors, []);
});
