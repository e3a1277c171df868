/**
 * Own vehicles and sharing on the dashboard end to end (issue 31): a real `vts serve` child
 * process and Debian's Chromium (skipped with one line when it is missing). The owner adds a
 * vehicle with the "Add a vehicle" form (a taken id says so), renames it, shares it with bob to
 * view; bob signs in and sees it marked "shared by demo · view", opens it without the Console,
 * Alerts or ABRP tabs; the owner revokes the share and bob's list loses it; the owner removes the
 * vehicle after typing its id. Screenshots at 1366 and 390 px.
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
import { DESKTOP, launchBrowser, PHONE, serve, shot, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const SKIP = await needs(chromium);
const COST = { N: 1024, r: 8, p: 1 };

test('dashboard: add a vehicle, share it to view, the other user sees it, revoke, remove', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-sharing-'));
  const store = await openStore(dataDir);
  const demo = await store.addOwner('demo', await hashPassword('demopass', COST), '*');
  await store.addOwner('bob', await hashPassword('bobpass1', COST), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: demo.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();
  const server = await serve(dataDir);
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${server.http}`;
  const errors: string[] = [];
  const open = async (user: string, password: string, viewport = DESKTOP): Promise<Page> => {
    const page = await browser.newPage({ viewport, locale: 'en-US' });
    page.on('pageerror', (err) => errors.push(err.message));
    await signIn(page, base, user, password);
    return page;
  };

  const owner = await open('demo', 'demopass');
  await owner.getByTestId('add-vehicle').locator('summary').click();
  // a taken id is refused with a sentence
  await owner.getByTestId('add-vehicle-id').fill('demo1');
  await owner.getByTestId('add-vehicle-password').fill('CARPASS1');
  await owner.getByTestId('add-vehicle-submit').click();
  await owner.locator('[data-testid="add-vehicle"] .form-note.error', { hasText: 'exists already' }).waitFor();
  await owner.getByTestId('add-vehicle-id').fill('family1');
  await owner.getByTestId('add-vehicle-name').fill('Family car');
  await owner.getByTestId('add-vehicle-submit').click();
  await owner.locator('[data-testid="vehicle-row"][data-vehicle="FAMILY1"]').waitFor();
  const settings = owner.locator('[data-testid="vehicle-settings"][data-vehicle="FAMILY1"]');
  await settings.locator('summary').click();
  await settings.getByTestId('share-user').fill('bob');
  await settings.getByTestId('share-access').selectOption('view');
  await settings.getByTestId('share-submit').click();
  await settings.locator('[data-testid="share-row"][data-user="bob"]').waitFor();
  await shot(owner, 'sharing-owner-1366');
  const phone = await open('demo', 'demopass', PHONE);
  const phoneSettings = phone.locator('[data-testid="vehicle-settings"][data-vehicle="FAMILY1"]');
  await phoneSettings.locator('summary').click();
  await phoneSettings.locator('[data-testid="share-row"][data-user="bob"]').waitFor();
  await shot(phone, 'sharing-owner-390');

  // bob sees the vehicle, marked; no Console, Alerts or ABRP; no settings of it
  const bob = await open('bob', 'bobpass1');
  const row = bob.locator('[data-testid="vehicle-row"][data-vehicle="FAMILY1"]');
  await row.waitFor();
  assert.equal(await row.getByTestId('row-shared').textContent(), 'shared by demo · view');
  assert.equal(await bob.locator('[data-testid="vehicle-settings"]').count(), 0);
  await shot(bob, 'sharing-viewer-1366');
  await bob.goto(`${base}/#/vehicle/FAMILY1`);
  await bob.getByTestId('vehicle-shared').waitFor();
  assert.equal(await bob.getByTestId('tab-console').isHidden(), true);
  assert.equal(await bob.getByTestId('tab-alerts').isHidden(), true);
  assert.equal(await bob.getByTestId('tab-abrp').isHidden(), true);
  assert.equal(await bob.getByTestId('tab-drives').isVisible(), true);

  // revoked: bob's list loses it on its next load
  owner.once('dialog', (d) => void d.accept());
  await settings.locator('[data-testid="share-row"][data-user="bob"]').getByTestId('share-revoke').click();
  await settings.locator('[data-testid="share-row"]').first().waitFor({ state: 'detached' });
  await bob.goto(`${base}/#/`);
  await bob.locator('.empty:not([hidden])').waitFor();
  assert.equal(await bob.locator('[data-testid="vehicle-row"]').count(), 0);

  // removing needs the id typed
  const remove = settings.getByTestId('remove-vehicle');
  assert.equal(await remove.isDisabled(), true);
  await settings.getByTestId('remove-confirm').fill('family1');
  await remove.click();
  await until(async () => ((await owner.locator('[data-testid="vehicle-row"][data-vehicle="FAMILY1"]').count()) === 0 ? true : undefined), 'the row to go');
  assert.deepEqual(errors, []);
});
