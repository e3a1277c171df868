/**
 * The dashboard's ABRP tab end to end (issue 29): a real `vts serve` child process with
 * `--abrp-api-key` and `--abrp-url` at a local ABRP stand-in, the emulated car DEMO1, and Debian's
 * Chromium driven by playwright-core (skipped with one line when it is missing). The owner opens
 * the vehicle's ABRP tab (not linked), links it with a token (the form is emptied, the token never
 * shown again), the stand-in receives the car's telemetry with that token, the tab then shows it
 * sending with its last send; unlinking says "Not linked" and the API agrees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { DESKTOP, emulator, launchBrowser, PHONE, serve, shot, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const TOKEN = 'e2e-abrp-token-0f1e2d3c4b5a';
const SKIP = await needs(chromium);

test('dashboard: link a vehicle to ABRP, see it sending, unlink it', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-abrp-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();

  const tokens: string[] = [];
  const abrp = createServer((req, res) => {
    tokens.push(new URL(req.url ?? '/', 'http://x').searchParams.get('token') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((r) => abrp.listen(0, '127.0.0.1', r));
  const abrpUrl = `http://127.0.0.1:${(abrp.address() as AddressInfo).port}`;
  const server = await serve(dataDir, ['--abrp-api-key', 'e2e-operator-key', '--abrp-url', abrpUrl]);
  const mod = emulator(server.mp, 29);
  await mod.start();
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await mod.stop();
    await stopServer(server);
    await new Promise<void>((r) => abrp.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${server.http}`;
  const api = async (): Promise<{ linked: boolean; state: string | null; lastSent: number | null }> => {
    const res = await fetch(`${base}/api/abrp/DEMO1?username=demo&password=demopass`);
    assert.equal(res.status, 200);
    return (await res.json()) as { linked: boolean; state: string | null; lastSent: number | null };
  };

  const page = await browser.newPage({ viewport: DESKTOP, locale: 'en-US' });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await signIn(page, base, 'demo', 'demopass');
  await page.goto(`${base}/#/vehicle/DEMO1/abrp`);
  const state = page.getByTestId('abrp-state');
  await page.locator('[data-testid="abrp-state"][data-state="none"]').waitFor();
  assert.equal(await state.textContent(), 'Not linked.');
  assert.equal(await page.getByTestId('abrp-unlink').isHidden(), true);

  // an empty token is refused in the page; a token links the vehicle
  await page.getByTestId('abrp-link').click();
  await page.getByTestId('abrp-error').waitFor();
  await page.getByTestId('abrp-token').fill(TOKEN);
  await page.getByTestId('abrp-link').click();
  await page.locator('[data-testid="abrp-state"][data-state="pending"], [data-testid="abrp-state"][data-state="ok"]').waitFor();
  assert.equal(await page.getByTestId('abrp-token').inputValue(), '', 'the form is emptied');
  assert.equal(await page.getByTestId('abrp-link').textContent(), 'Link with a new token');

  // the car's telemetry reaches the stand-in with the token; the tab shows it sending
  await until(async () => (tokens.includes(TOKEN) ? true : undefined), 'the telemetry at the ABRP stand-in');
  await until(async () => ((await api()).state === 'ok' ? true : undefined), 'the link sending');
  await page.reload();
  await page.locator('[data-testid="abrp-state"][data-state="ok"]').waitFor();
  assert.notEqual(await page.getByTestId('abrp-last-sent').textContent(), 'never');
  assert.ok(!(await page.content()).includes(TOKEN), 'the token is not in the page');
  await shot(page, '9-abrp-1366');
  await page.setViewportSize(PHONE);
  await shot(page, '9-abrp-390');
  await page.setViewportSize(DESKTOP);

  // unlinked: the tab and the API say so
  await page.getByTestId('abrp-unlink').click();
  await page.locator('[data-testid="abrp-state"][data-state="none"]').waitFor();
  assert.equal((await api()).linked, false);
  assert.deepEqual(errors, []);
});
