/**
 * The web dashboard end to end: a real `vts serve` child process, an emulated vehicle
 * on the v2 link, and Debian's Chromium driven by playwright-core (skipped with one line when it is
 * missing, test/support/services.ts). At a desktop width (1366, 1920) and a phone width (390):
 * sign in, see the vehicle, a live update and notifications laid out readably, the console (output,
 * errors as sentences, buttons disabled while the car is offline), the history (charts only, periods
 * up to the 30 days kept, a time axis that fits the data), "not found" for an unknown and a
 * foreign vehicle, a token created and revoked. Screenshots go to test-artifacts/e2e/ (git-ignored).
 * The set-up is in helpers.ts (shared with dashboard-push.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { ARTIFACTS, DESKTOP, emulator, launchBrowser, PHONE, serve, shot, stopServer, WEB_BUILD, WIDE } from './helpers.js';

const LONG_NOTE = 'Charging stopped: the charge port was unlocked while charging at the public station, please check the cable';

/**
 * Three hours of history for DEMO1 (S, D, L every 5 minutes): a drive of 15 km, then the odometer
 * reads 9,059.8 km less (an emulator restarted with another seed), then a drive of 2 km; and two
 * notifications. Returns the time of the first record.
 */
async function seedHistory(store: Store, now: number): Promise<number> {
  const start = now - 3 * 3600;
  const add = (type: string, time: number, data: string) =>
    store.addHistorical({ vehicleId: 'DEMO1', type, recordNumber: 0, time, data, expires: now + 86400 }, true);
  let odo = 100_000; // tenths of a km
  for (let time = start, i = 0; time < now - 600; time += 300, i++) {
    if (i === 10) odo += 75; // 7.5 km in 5 minutes, twice: the 15 km trip
    if (i === 11) odo += 75;
    if (i === 16) odo -= 90_598; // the odometer goes back by 9,059.8 km
    if (i === 20) odo += 20; // the 2 km trip
    const soc = (90 - i * 0.6).toFixed(1);
    await add('S', time, `${soc},K,0,0,stopped,standard,${300 - i},${280 - i}`);
    await add('D', time, `0,0,4,${25 + (i % 5)},${30 + (i % 7)},${20 + i / 10},0,${odo},0,0,${12 + (i % 3)}`);
    await add('L', time, `${48.1 + i / 1000},11.5,0,500,1,1,0,0,0,${(i % 6) * 2.5}`);
  }
  await add('*-Log-Notification', now - 1200, `A,${LONG_NOTE}`);
  await add('*-Log-Notification', now - 900, 'I,Climate control switched off after 10 minutes');
  return start;
}

/** The notifications are laid out readably: every text is about as wide as its list, not a column of letters. */
async function checkNotifications(page: Page, width: number): Promise<void> {
  const list = await page.getByTestId('notifications').boundingBox();
  assert.ok(list, 'the notification list is shown');
  const texts = page.locator('[data-testid="notifications"] .notification .text');
  const n = await texts.count();
  assert.ok(n >= 3, `at least 3 notifications, ${n} shown`);
  for (let i = 0; i < n; i++) {
    const box = await texts.nth(i).boundingBox();
    assert.ok(box, 'a notification text is shown');
    assert.ok(box.width >= list.width * 0.9, `at ${width} px a notification's text is ${box.width} px wide in a list of ${list.width} px`);
  }
}

const SKIP = await needs(chromium);
/** The console's results of commands that have finished (in order). */
const FINISHED = ['ok', 'failed', 'error'].map((c) => `[data-testid="console-result"].${c}`).join(', ');

test('dashboard: live, console, history and not-found pages at desktop and phone widths; a token created and revoked', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  const other = await store.addOwner('other', await hashPassword('otherpass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.addVehicle({ id: 'OTHER1', ownerId: other.id, name: 'Not yours', carPassword: 'NETPASS' });
  const historyStart = await seedHistory(store, Math.floor(Date.now() / 1000));
  await store.close();

  const server = await serve(dataDir);
  let mod = emulator(server.mp, 11);
  await mod.start();
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await mod.stop();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const page = await browser.newPage({ viewport: DESKTOP, locale: 'en-US' });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const requests: string[] = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  const base = `http://127.0.0.1:${server.http}`;

  // sign in (a wrong password first)
  await page.goto(`${base}/`);
  await page.getByTestId('login-username').fill('demo');
  await page.getByTestId('login-password').fill('wrong');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login-error').waitFor();
  await page.getByTestId('login-password').fill('demopass');
  await page.getByTestId('login-submit').click();

  // the vehicle list shows DEMO1 online on v2 with its SOC, and not the other user's vehicle
  const row = page.locator('[data-testid="vehicle-row"][data-vehicle="DEMO1"]');
  await row.waitFor({ timeout: 15_000 });
  await row.locator('[data-testid="row-soc"]:not([data-value=""])').waitFor({ timeout: 15_000 });
  assert.match((await row.getByTestId('row-link').textContent()) ?? '', /v2/i);
  assert.equal(await page.locator('[data-vehicle="OTHER1"]').count(), 0);
  await shot(page, '1-vehicles-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '1-vehicles-390');
  await page.setViewportSize(DESKTOP);

  // --- Live: a live update, notifications (stored and pushed) readable at every width ---
  await row.click();
  await page.getByTestId('live-soc').waitFor();
  // the header: the owner's name for the car (its id beside it) and one state, online over v2
  assert.equal(await page.getByTestId('vehicle-name').textContent(), 'Demo car');
  assert.equal(await page.getByTestId('vehicle-id').textContent(), 'DEMO1');
  const state = page.getByTestId('live-link');
  await page.locator('[data-testid="live-link"][data-link="v2"]').waitFor({ timeout: 15_000 });
  assert.equal(await state.textContent(), 'online · v2');
  assert.equal(await page.title(), 'Demo car · vts');
  mod.metrics.set('v.b.soc', 42.5, mod.now());
  await page.locator('[data-testid="live-soc"][data-value="42.5"]').waitFor({ timeout: 15_000 });
  mod.notify({ type: 'alert', subtype: 'e2e.test', text: 'Vehicle alarm: the cabin was opened while the car was locked' });
  await page.locator('[data-testid="notifications"] .notification', { hasText: 'Vehicle alarm' }).waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="notifications"] .notification', { hasText: 'public station' }).waitFor();
  await page.getByTestId('map').waitFor();
  for (const [size, name] of [
    [DESKTOP, '2-live-1366'],
    [WIDE, '2-live-1920'],
    [PHONE, '2-live-390'],
  ] as const) {
    await page.setViewportSize(size);
    await checkNotifications(page, size.width);
    await shot(page, name);
    await page.locator('section.notes').screenshot({ path: join(ARTIFACTS, `${name}-notifications.png`) });
  }
  await page.setViewportSize(DESKTOP);

  // --- Console: output; errors as sentences; buttons follow the car's link ---
  await page.getByTestId('tab-console').click();
  const input = page.getByTestId('console-input');
  const output = page.getByTestId('console-output');
  await input.fill('echo hello-from-e2e');
  await input.press('Enter');
  // the transcript shows the command line, then its output: the word twice
  await output.filter({ hasText: /hello-from-e2e[\s\S]*hello-from-e2e/ }).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('[data-testid="console-result"][data-result="0"]').textContent(), 'Done.');
  // a command the server refuses (VTS_ERR_COMMAND_SYNTAX): a sentence, the code in the tooltip
  await input.fill(`echo ${'x'.repeat(2001)}`);
  await page.getByTestId('console-run').click();
  const syntax = page.locator('[data-testid="console-result"][data-code="VTS_ERR_COMMAND_SYNTAX"]');
  await syntax.waitFor({ timeout: 15_000 });
  assert.equal(await syntax.textContent(), 'The command is not valid: command longer than 2000 characters.');
  assert.match((await syntax.getAttribute('title')) ?? '', /^HTTP 400 VTS_ERR_COMMAND_SYNTAX/);
  // the car drops off between the click and the command (the server's 409 body, replayed)
  await page.route('**/api/command/DEMO1', (route) =>
    route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ error: 'VTS_ERR_NOT_CONNECTED', message: 'vehicle not connected: DEMO1' }) }),
  );
  await page.getByTestId('action-climate-on').click();
  const notConnected = page.locator('[data-testid="console-result"][data-code="VTS_ERR_NOT_CONNECTED"]');
  await notConnected.waitFor({ timeout: 15_000 });
  assert.equal(await notConnected.textContent(), 'The car is not connected.');
  await page.unroute('**/api/command/DEMO1');
  // the placeholder suggests commands the module has: each runs and succeeds
  const suggested = ((await input.getAttribute('placeholder')) ?? '').split(',').map((c) => c.replace('…', '').trim()).filter((c) => c !== '');
  assert.ok(suggested.length >= 3, `suggestions: ${suggested.join(' | ')}`);
  for (const c of suggested) {
    const before = await page.getByTestId('console-result').count();
    await input.fill(c);
    await input.press('Enter');
    const result = page.locator(FINISHED).nth(before);
    await result.waitFor({ timeout: 15_000 });
    assert.equal(await result.getAttribute('data-result'), '0', `the suggested command "${c}" exists and succeeds: ${await result.textContent()}`);
  }
  // Lock asks for the PIN in a field of its own, never in a browser dialog
  const dialogs: string[] = [];
  const onDialog = (d: { message(): string; dismiss(): Promise<void> }) => {
    dialogs.push(d.message());
    void d.dismiss();
  };
  page.on('dialog', onDialog);
  const pin = page.getByTestId('action-pin');
  const results = await page.getByTestId('console-result').count();
  await page.getByTestId('action-lock').click();
  assert.equal(await page.getByTestId('pin-hint').textContent(), 'Enter the vehicle PIN to lock the car.');
  assert.equal(await pin.evaluate((el) => el === el.ownerDocument.activeElement), true, 'the PIN field has the focus');
  assert.equal(await page.getByTestId('console-result').count(), results, 'nothing sent without a PIN');
  await pin.fill('4711');
  await page.getByTestId('pin-hint').waitFor({ state: 'hidden' });
  await page.getByTestId('action-lock').click();
  const locked = page.locator(FINISHED).nth(results);
  await locked.waitFor({ timeout: 15_000 });
  // sent with the PIN (the car answers; a car that is driving refuses to lock)
  assert.match((await locked.getAttribute('data-result')) ?? '', /^[01]$/, `${await locked.textContent()}`);
  assert.equal(await pin.inputValue(), '', 'the PIN is not kept');
  assert.doesNotMatch((await output.textContent()) ?? '', /4711/, 'the PIN is not shown');
  assert.match((await output.textContent()) ?? '', /# Lock \(MP command 20,••••\)/);
  page.off('dialog', onDialog);
  assert.deepEqual(dialogs, [], 'no browser dialog');
  assert.doesNotMatch((await output.textContent()) ?? '', /VTS_ERR|error \d{3}/, 'no error codes in the transcript');
  await shot(page, '3-console-1366');

  // the car goes offline: every action and Run are disabled, a note says why
  const buttons = ['action-lock', 'action-unlock', 'action-climate-on', 'action-climate-off', 'action-charge-start', 'action-charge-stop', 'action-homelink-1', 'console-run'];
  await mod.stop();
  await page.getByTestId('console-offline').waitFor({ timeout: 15_000 });
  for (const b of buttons) await page.locator(`[data-testid="${b}"]:disabled`).waitFor();
  // one state in the header: offline, with no "live" beside it
  await page.locator('[data-testid="live-link"][data-link="offline"]').waitFor({ timeout: 15_000 });
  assert.equal(await state.textContent(), 'offline');
  assert.doesNotMatch((await page.locator('.vehicle .conn').textContent()) ?? '', /live/i);
  await page.locator('[data-testid="action-pin"]:disabled').waitFor();
  await page.setViewportSize(PHONE);
  await shot(page, '3-console-offline-390');
  await page.setViewportSize(DESKTOP);
  // it comes back (restarted with another seed: its odometer jumps) and they are enabled again
  mod = emulator(server.mp, 12);
  await mod.start();
  await page.getByTestId('console-offline').waitFor({ state: 'hidden', timeout: 15_000 });
  for (const b of buttons) await page.locator(`[data-testid="${b}"]:enabled`).waitFor();

  // --- History: charts only (the drives are on their own tab), the axis spans the data, labels apart ---
  await page.getByTestId('tab-history').click();
  await page.locator('[data-testid="chart-soc"] canvas[data-x-labels]').waitFor({ timeout: 15_000 });
  assert.equal(await page.getByTestId('trips').count(), 0, 'the old trips table is gone');
  // the periods offered end at the 30 days of history the server keeps
  assert.deepEqual(await page.locator('[data-testid="history-period"] option').evaluateAll((o) => o.map((e) => e.getAttribute('value'))), ['6h', '24h', '7d', '30d', 'custom']);
  assert.match((await page.getByTestId('history-status').textContent()) ?? '', /^Last 24 hours: \d+ values from /);
  for (const [size, name] of [
    [DESKTOP, '4-history-1366'],
    [PHONE, '4-history-390'],
  ] as const) {
    await page.setViewportSize(size);
    for (const chart of ['chart-soc', 'chart-power', 'chart-temps']) {
      const canvas = page.locator(`[data-testid="${chart}"] canvas`);
      // the axis starts at the first value (3 hours ago), not 24 hours ago
      assert.equal(Number(await canvas.getAttribute('data-from')), historyStart);
      // Chart.js redraws on resize: once its axis is laid out for this width, two labels at least,
      // with 8 px between them at least (a string: this file is type-checked without the DOM)
      await page.waitForFunction(`(() => {
        const c = document.querySelector('[data-testid="${chart}"] canvas');
        if (!c || Math.abs(Number(c.dataset.xWidth) - c.clientWidth) > 1) return false;
        return (c.dataset.xLabels || '').split('|').filter((l) => l !== '').length >= 2 && Number(c.dataset.xRoom) >= 8;
      })()`);
    }
    await shot(page, name);
  }
  await page.setViewportSize(DESKTOP);

  // --- an unknown and a foreign vehicle: "not found", on every tab, and nothing polled ---
  for (const id of ['NOPE', 'OTHER1']) {
    for (const tab of ['', '/history', '/console', '/notifications']) {
      await page.goto(`${base}/#/vehicle/${id}${tab}`);
      await page.getByTestId('vehicle-not-found').waitFor();
      assert.equal(await page.getByTestId('live-soc').count(), 0);
    }
  }
  await shot(page, '5-not-found-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '5-not-found-390');
  await page.setViewportSize(DESKTOP);
  // the page asked the overview only: no stream, no status, no history of those vehicles
  assert.deepEqual(
    requests.filter((p) => /\/(NOPE|OTHER1)\b/.test(p)),
    [],
  );

  // --- account: create a token (shown once), then revoke it ---
  await page.getByTestId('nav-account').click();
  await page.getByTestId('token-application').fill('e2e');
  await page.getByTestId('token-purpose').fill('testing');
  await page.getByTestId('token-create').click();
  const shown = page.getByTestId('token-new-value');
  await shown.waitFor();
  const token = ((await shown.textContent()) ?? '').trim();
  assert.match(token, /^[0-9a-f]{64}$/);
  await page.getByTestId('token-row').first().waitFor();
  assert.equal(await page.getByTestId('token-row').count(), 1);
  // the token works against the API
  const check = await fetch(`${base}/api/vehicles?username=demo&password=${token}`);
  assert.equal(check.status, 200);
  await shot(page, '6-token-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '6-token-390');
  await page.setViewportSize(DESKTOP);
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('token-row').first().getByTestId('token-revoke').click();
  await page.getByTestId('token-row').first().waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal((await fetch(`${base}/api/vehicles?username=demo&password=${token}`)).status, 401);
  assert.deepEqual(errors, [], 'no script errors on the page');
});
