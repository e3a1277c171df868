/**
 * The operator's page end to end (issue 31): a real `vts serve` child process, the emulated car
 * DEMO1, Debian's Chromium (skipped with one line when it is missing). An admin sees the Admin
 * entry, searches the users, disables one (after a confirmation; the API then refuses its login),
 * resets a password (shown once), sees the vehicles with DEMO1 online, the server's figures
 * refreshing and the audit log with what was done; at 1366 and 390 px (the tables stacked). A user
 * without the right sees no Admin entry and no page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { DESKTOP, emulator, launchBrowser, PHONE, serve, shot, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const SKIP = await needs(chromium);
const COST = { N: 1024, r: 8, p: 1 };

test('dashboard: the Admin section for an admin (users, vehicles, server, audit log), none for others', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-admin-'));
  const store = await openStore(dataDir);
  await store.addOwner('op', await hashPassword('op-password', COST), '*');
  await store.setOwnerFlags('op', { admin: true });
  const demo = await store.addOwner('demo', await hashPassword('demopass', COST), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: demo.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.addOwner('alice', await hashPassword('alice-password', COST), '*');
  await store.setOwnerFlags('alice', { verified: false });
  for (let k = 1; k <= 30; k++) await store.addOwner(`user${String(k).padStart(2, '0')}`, await hashPassword('user-password', COST), '*');
  await store.close();

  const server = await serve(dataDir);
  const mod = emulator(server.mp, 31);
  await mod.start();
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await mod.stop();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${server.http}`;
  const errors: string[] = [];
  const open = async (viewport: { width: number; height: number }): Promise<Page> => {
    const page = await browser.newPage({ viewport, locale: 'en-US' });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('dialog', (d) => void d.accept());
    return page;
  };

  // a user without the right: no Admin entry, no page
  const plain = await open(DESKTOP);
  await signIn(plain, base, 'demo', 'demopass');
  assert.equal(await plain.getByTestId('nav-admin').isHidden(), true);
  await plain.goto(`${base}/#/admin`);
  await plain.getByText('not found', { exact: false }).first().waitFor();
  assert.equal(await plain.getByTestId('admin-users').count(), 0);
  await plain.close();

  const page = await open(DESKTOP);
  await signIn(page, base, 'op', 'op-password');
  await page.getByTestId('nav-admin').click();
  const rows = page.getByTestId('admin-user-row');
  await until(async () => ((await rows.count()) === 25 ? true : undefined), 'the first page of users');
  assert.match((await page.locator('.pager [role="status"]').textContent()) ?? '', /^1–25 of 33$/);
  await shot(page, 'admin-users-1366');

  await page.getByTestId('admin-user-search').fill('ali');
  await until(async () => ((await rows.count()) === 1 ? true : undefined), 'the search');
  const alice = page.locator('[data-testid="admin-user-row"][data-user="alice"]');
  assert.match((await alice.textContent()) ?? '', /not verified/);
  await alice.getByTestId('admin-verify').click();
  await until(async () => (/not verified/.test((await alice.textContent()) ?? '') ? undefined : true), 'verified');
  await alice.getByTestId('admin-disable').click();
  await alice.locator('.badge.state-disabled').waitFor();
  const refused = await fetch(`${base}/api/vehicles?username=alice&password=alice-password`);
  assert.equal(refused.status, 401, 'a disabled account cannot log in');

  await page.getByTestId('admin-user-search').fill('demo');
  const demoRow = page.locator('[data-testid="admin-user-row"][data-user="demo"]');
  await demoRow.waitFor();
  await demoRow.getByTestId('admin-reset').click();
  const secret = page.getByTestId('admin-new-password');
  await secret.waitFor();
  const password = (await secret.textContent()) ?? '';
  assert.match(password, /^[a-z2-9]{20}$/);
  assert.equal((await fetch(`${base}/api/vehicles?username=demo&password=${password}`)).status, 200, 'the new password works');
  assert.equal((await fetch(`${base}/api/vehicles?username=demo&password=demopass`)).status, 401, 'the old one does not');
  await shot(page, 'admin-reset-1366');

  await page.getByTestId('admin-tab-vehicles').click();
  const vehicle = page.locator('[data-testid="admin-vehicle-row"][data-vehicle="DEMO1"]');
  await vehicle.waitFor();
  assert.match((await vehicle.textContent()) ?? '', /demo/);
  await shot(page, 'admin-vehicles-1366');

  await page.getByTestId('admin-tab-server').click();
  await until(async () => ((await page.getByTestId('server-cars').textContent()) === '1' ? true : undefined), 'the car in the figures');
  const first = await page.locator('.updated').textContent();
  await until(async () => ((await page.locator('.updated').textContent()) !== first ? true : undefined), 'a refresh of the figures', 10_000);
  await shot(page, 'admin-server-1366');

  await page.getByTestId('admin-tab-audit').click();
  await page.locator('[data-testid="audit-row"][data-action="user.disable"]').waitFor();
  const actions = await page.getByTestId('audit-row').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
  assert.deepEqual(actions.slice(0, 4), ['password.reset', 'user.disable', 'user.verify', 'session.signin']);
  await page.getByTestId('audit-action').fill('user');
  await page.getByTestId('audit-action').press('Enter');
  await until(async () => ((await page.getByTestId('audit-row').count()) === 2 ? true : undefined), 'the filtered log');
  await shot(page, 'admin-audit-1366');

  // a phone: the tables become stacked rows, nothing wider than the screen
  const phone = await open(PHONE);
  await signIn(phone, base, 'op', 'op-password');
  await phone.goto(`${base}/#/admin`);
  await phone.getByTestId('admin-user-row').first().waitFor();
  const width = (await phone.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(width <= PHONE.width, `the page is ${width} px wide at ${PHONE.width} px`);
  const display = (await phone.evaluate("getComputedStyle(document.querySelector('[data-testid=admin-user-row]')).display")) as string;
  assert.equal(display, 'block', 'a stacked row');
  await shot(phone, 'admin-users-390');
  await phone.getByTestId('admin-tab-server').click();
  await phone.getByTestId('server-cars').waitFor();
  await shot(phone, 'admin-server-390');
  await phone.getByTestId('admin-tab-audit').click();
  await phone.getByTestId('audit-row').first().waitFor();
  assert.ok(((await phone.evaluate('document.documentElement.scrollWidth')) as number) <= PHONE.width);
  await shot(phone, 'admin-audit-390');
  assert.deepEqual(errors, []);
});
