/**
 * The dashboard's push notifications end to end (issue 15): a real `vts serve` child process (no
 * push provider set up, so the apps' FCM subscriptions are skipped; at most one notification per
 * minute), the emulated car DEMO1, an app's MP connection, a local webhook receiver, and Debian's
 * Chromium driven by playwright-core (skipped with one line when it is missing). On the account
 * page: empty states, an ntfy URL refused with a sentence, a signed webhook target added and listed,
 * an app's `p` subscription listed; on the vehicle's Notifications tab: a notification delivered to
 * the webhook (signed) with the FCM delivery skipped and why, and one marked rate-limited; then the
 * subscription deleted and the target removed (each after a confirm). Screenshots go to
 * test-artifacts/e2e/ (git-ignored).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { DESKTOP, emulator, launchBrowser, PHONE, serve, shot, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const SECRET = 'e2e-webhook-secret';

/** The JSON answers the test reads through the API (docs/web-api.md "Push notifications"). */
interface TargetJson {
  id: number;
  kind: string;
  url: string;
  signed: boolean;
}

interface NotificationJson {
  text: string;
  limited: boolean;
  deliveries: { channel: string; state: string; attempts: { detail: string }[] }[];
}

const SKIP = await needs(chromium);

test('dashboard: push subscriptions and targets on the account page, deliveries on the vehicle page', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-push-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();

  const rx = await HttpReceiver.start();
  const server = await serve(dataDir, ['--push-limit', '1/1', '--push-retry', '1', '--webhook-allow', '127.0.0.1']);
  const mod = emulator(server.mp, 21);
  await mod.start();
  const apps: MpClient[] = [];
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    for (const c of apps) await c.close();
    await mod.stop();
    await stopServer(server);
    await rx.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const page = await browser.newPage({ viewport: DESKTOP, locale: 'en-US' });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const base = `http://127.0.0.1:${server.http}`;
  /** A GET of the API as the owner (with the password: no session, no CSRF token). */
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}username=demo&password=demopass`);
    assert.equal(res.status, 200, `GET ${path}`);
    return (await res.json()) as T;
  };

  await signIn(page, base, 'demo', 'demopass');
  await page.getByTestId('nav-account').click();

  // --- nothing yet: each list says so in a sentence ---
  await page.getByTestId('push-subs-empty').waitFor();
  await page.getByTestId('push-targets-empty').waitFor();

  // --- ntfy: no secret field, the help names the topic URL; a URL of no topic is refused in words ---
  const kind = page.getByTestId('push-target-kind');
  const url = page.getByTestId('push-target-url');
  const secret = page.getByTestId('push-target-secret');
  const addError = page.getByTestId('push-target-error');
  await kind.selectOption('ntfy');
  await secret.waitFor({ state: 'hidden' });
  assert.match((await page.getByTestId('push-target-help').textContent()) ?? '', /https:\/\/ntfy\.sh\/<topic>/);
  await url.fill('https://ntfy.sh/not/a-topic');
  await page.getByTestId('push-target-add').click();
  await addError.waitFor();
  assert.match((await addError.textContent()) ?? '', /^The target could not be added: The server refused the input: an ntfy URL names one topic\b.*\.$/);

  // --- a signed webhook: added, listed with "yes", never tried; the API never shows the secret ---
  await kind.selectOption('webhook');
  await secret.waitFor();
  assert.match((await page.getByTestId('push-target-help').textContent()) ?? '', /JSON POST.*X-Vts-Signature/);
  await url.fill(`${rx.url}/hook`);
  await secret.fill(SECRET);
  await page.getByTestId('push-target-add').click();
  const targetRow = page.locator('[data-testid="push-target-row"][data-kind="webhook"]');
  await targetRow.waitFor();
  await addError.waitFor({ state: 'hidden' });
  assert.equal(await targetRow.locator('td[data-label="URL"]').textContent(), `${rx.url}/hook`);
  assert.equal(await targetRow.locator('td[data-label="Signed"]').textContent(), 'yes');
  assert.equal(await targetRow.getByTestId('push-target-result').textContent(), 'never tried');
  assert.equal(await url.inputValue(), '', 'the form is emptied');
  assert.equal(await secret.inputValue(), '');
  const targets = await api<TargetJson[]>('/api/push/targets');
  assert.deepEqual(
    targets.map(({ kind: k, url: u, signed }) => ({ kind: k, url: u, signed })),
    [{ kind: 'webhook', url: `${rx.url}/hook`, signed: true }],
  );
  assert.doesNotMatch(JSON.stringify(targets), new RegExp(SECRET));

  // --- an app subscribes over MP (`p` with the vehicle id and its car password): listed ---
  const app = await MpClient.connect({ host: '127.0.0.1', port: server.mp, clientType: 'A', vehicleId: 'DEMO1', scheme: 0, password: 'NETPASS' });
  apps.push(app);
  await app.waitFor('T');
  app.send('p', 'e2e-phone,gcm,production,DEMO1,NETPASS,fcm-token-e2e-0123456789');
  await until(async () => ((await api<unknown[]>('/api/push/subscriptions')).length === 1 ? true : undefined), 'the subscription');
  await page.reload();
  const subRow = page.locator('[data-testid="push-sub-row"][data-vehicle="DEMO1"][data-app="e2e-phone"]');
  await subRow.waitFor();
  assert.equal(await subRow.locator('td[data-label="Channel"]').textContent(), 'Google (FCM)');
  assert.match((await subRow.locator('td[data-label="Key"]').textContent()) ?? '', /^fcm-toke…production$/);
  await page.getByTestId('push-section').scrollIntoViewIfNeeded();
  await shot(page, '7-push-account-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '7-push-account-390');
  await page.setViewportSize(DESKTOP);

  // --- the car pushes two alerts: the first is delivered, the second is over the limit (1/min) ---
  await until(async () => ((await api<{ online: boolean }[]>('/api/overview'))[0]?.online ? true : undefined), 'the car online');
  mod.notify({ type: 'alert', subtype: 'e2e.charge', text: 'Charging stopped: e2e' });
  mod.notify({ type: 'alert', subtype: 'e2e.alarm', text: 'Vehicle alarm: e2e' });
  const [hook] = await rx.waitForRequests(1, 15_000);
  assert.ok(hook);
  assert.equal(hook.path, '/hook');
  assert.equal(hook.json<{ text: string }>().text, 'Charging stopped: e2e');
  assert.equal(hook.headers['x-vts-signature'], `sha256=${createHmac('sha256', SECRET).update(hook.body).digest('hex')}`);
  const history = await until(async () => {
    const list = await api<NotificationJson[]>('/api/notifications/DEMO1');
    const settled = list.length === 2 && list.every((n) => n.deliveries.every((d) => d.state !== 'pending' && d.state !== 'receipt'));
    return settled ? list : undefined;
  }, 'both notifications, their deliveries settled');
  assert.deepEqual(
    history
      .map((n) => ({ text: n.text, limited: n.limited, deliveries: n.deliveries.map((d) => `${d.channel}:${d.state}`).sort() }))
      .sort((a, b) => a.text.localeCompare(b.text)),
    [
      { text: 'Charging stopped: e2e', limited: false, deliveries: ['fcm:skipped', 'webhook:delivered'] },
      { text: 'Vehicle alarm: e2e', limited: true, deliveries: [] },
    ],
  );

  // --- the vehicle's Notifications tab: newest first, the limited one marked, deliveries and attempts ---
  await page.goto(`${base}/#/vehicle/DEMO1/notifications`);
  const notes = page.getByTestId('push-notification');
  await notes.first().waitFor({ timeout: 15_000 });
  assert.equal(await notes.count(), 2);
  const limited = notes.filter({ hasText: 'Vehicle alarm: e2e' });
  assert.equal(await limited.getAttribute('data-limited'), 'true');
  assert.equal(await limited.getByTestId('push-limited').textContent(), 'rate-limited: not delivered');
  const delivered = notes.filter({ hasText: 'Charging stopped: e2e' });
  assert.equal(await delivered.getAttribute('data-limited'), 'false');
  assert.equal(await delivered.getByTestId('push-outcome').textContent(), '1 delivered · 1 skipped');
  await delivered.locator('summary').click();
  const webhook = delivered.locator('[data-testid="push-delivery"][data-channel="webhook"]');
  await webhook.waitFor();
  assert.equal(await webhook.getAttribute('data-state'), 'delivered');
  assert.ok(((await webhook.textContent()) ?? '').includes(`${rx.url}/hook`), 'the target named by its URL');
  assert.match((await webhook.getByTestId('push-attempt').first().textContent()) ?? '', /delivered/);
  const fcm = delivered.locator('[data-testid="push-delivery"][data-channel="fcm"]');
  assert.equal(await fcm.getAttribute('data-state'), 'skipped');
  assert.match((await fcm.textContent()) ?? '', /e2e-phone/);
  assert.notEqual(((await fcm.getByTestId('push-attempt').first().textContent()) ?? '').trim(), '', 'the skip says why');
  await shot(page, '8-push-notifications-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '8-push-notifications-390');
  await page.setViewportSize(DESKTOP);

  // --- back on the account page: the webhook's last result; delete and remove, each after a confirm ---
  await page.getByTestId('nav-account').click();
  await targetRow.waitFor();
  assert.match((await targetRow.getByTestId('push-target-result').textContent()) ?? '', /delivered/);

  page.once('dialog', (d) => void d.dismiss());
  await targetRow.getByTestId('push-target-remove').click();
  assert.equal(await targetRow.getByTestId('push-target-remove').isEnabled(), true);
  assert.equal((await api<unknown[]>('/api/push/targets')).length, 1, 'a dismissed confirm removes nothing');

  page.once('dialog', (d) => void d.accept());
  await subRow.getByTestId('push-sub-delete').click();
  await subRow.waitFor({ state: 'detached', timeout: 10_000 });
  await page.getByTestId('push-subs-empty').waitFor();
  assert.deepEqual(await api('/api/push/subscriptions'), []);

  page.once('dialog', (d) => void d.accept());
  await targetRow.getByTestId('push-target-remove').click();
  await targetRow.waitFor({ state: 'detached', timeout: 10_000 });
  await page.getByTestId('push-targets-empty').waitFor();
  assert.deepEqual(await api('/api/push/targets'), []);
  assert.deepEqual(errors, [], 'no script errors on the page');
});
