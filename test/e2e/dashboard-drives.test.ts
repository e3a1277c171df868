/**
 * The dashboard's drives, charges, battery, stats and places pages end to end (issue 28): a real
 * `vts serve` child process whose store holds a scripted day (drives-fixtures.ts: three drives with
 * their routes, a DC and an AC charge with their cost, two places), and Debian's Chromium driven by
 * playwright-core (skipped with one line when it is missing). Each page at 1366 and 390 px: rows,
 * place names, the route drawn on the map, chart canvases, cost text, CSV and GPX downloads, no
 * page wider than the screen; a place refused (radius) with the error next to the field, then
 * added through the form and listed, then deleted after a confirm; the History tab's lines broken
 * across three hours without data. Screenshots go to $VTS_E2E_SHOTS (default test-artifacts/e2e/).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { CHARGER, HOME, scriptedDay } from './drives-fixtures.js';
import { ARTIFACTS, DESKTOP, launchBrowser, PHONE, serve, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const SHOTS = process.env.VTS_E2E_SHOTS ?? ARTIFACTS;
const SKIP = await needs(chromium);

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Nothing is wider than the screen (the tables became cards, the forms wrap), once the charts have followed the resize. */
async function fitsWidth(page: Page, what: string): Promise<void> {
  await until(async () => ((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')) ? true : undefined), 'the page to fit', 5_000).catch(() => undefined);
  const { scroll, inner, widest } = (await page.evaluate(`({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    widest: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(-3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', '),
  })`)) as { scroll: number; inner: number; widest: string };
  assert.ok(scroll <= inner + 1, `${what}: the page is ${scroll} px wide on a ${inner} px screen (${widest})`);
}

/** The page at both widths: `check` runs at each, then a screenshot. */
async function bothWidths(page: Page, name: string, check: (width: number) => Promise<void> = async () => undefined): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await check(size.width);
    if (size === PHONE) await fitsWidth(page, name);
    await shot(page, `drives-${name}-${size.width}`);
  }
  await page.setViewportSize(DESKTOP);
}

/** S records every 5 minutes for an hour, nothing for three hours, then another hour. */
async function seedHistory(store: Awaited<ReturnType<typeof openStore>>, now: number): Promise<void> {
  const add = (time: number, soc: number) =>
    store.addHistorical({ vehicleId: 'DEMO1', type: 'S', recordNumber: 0, time, data: `${soc},K,0,0,stopped,standard,${soc * 3},${soc * 3}`, expires: now + 86400 }, true);
  const start = now - 6 * 3600;
  for (let i = 0; i <= 12; i++) await add(start + i * 300, 80 - i * 0.2);
  for (let i = 0; i <= 12; i++) await add(start + 4 * 3600 + i * 300, 75 - i * 0.2);
}

test('dashboard: drives, charges, battery, stats and places at 1366 and 390 px', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const now = Math.floor(Date.now() / 1000);
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-drives-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.addVehicle({ id: 'EMPTY1', ownerId: owner.id, name: 'New car', carPassword: 'NETPASS' });
  const home = await store.drives.addPlace(owner.id, HOME);
  const charger = await store.drives.addPlace(owner.id, CHARGER);
  await store.drives.replaceSessions('DEMO1', scriptedDay(now, home.id, charger.id), 'null', 0);
  await seedHistory(store, now);
  await store.close();

  const server = await serve(dataDir);
  const browser: Browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const page = await browser.newPage({ viewport: DESKTOP, locale: 'en-US', timezoneId: 'Europe/Berlin' });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const base = `http://127.0.0.1:${server.http}`;
  await signIn(page, base, 'demo', 'demopass');

  // --- Drives: three rows with the places' names, a CSV of them ---
  await page.goto(`${base}/#/vehicle/DEMO1/drives`);
  const driveRows = page.getByTestId('drive-row');
  await driveRows.first().waitFor({ timeout: 15_000 });
  assert.equal(await driveRows.count(), 3);
  const drivesText = (await page.getByTestId('drives').textContent()) ?? '';
  assert.match(drivesText, /Home → /);
  assert.match(drivesText, /→ Autohof fast charger/);
  assert.match(drivesText, /31\.7\s*km/);
  assert.match(drivesText, /Wh\/km/);
  const csvHref = (await page.getByTestId('drives-csv').getAttribute('href')) ?? '';
  assert.match(csvHref, /format=csv/);
  const csv = await page.request.get(`${base}${csvHref}`);
  assert.equal(csv.status(), 200);
  assert.match(csv.headers()['content-type'] ?? '', /text\/csv/);
  assert.equal((await csv.text()).trim().split(/\r?\n/).length, 4, 'a header and three drives');
  await bothWidths(page, 'list', async () => {
    assert.ok((await driveRows.first().boundingBox())!.height > 0);
  });

  // --- a drive: its route on the map, speed and SOC charts, the GPX ---
  await driveRows.filter({ hasText: 'Autohof fast charger →' }).locator('a').click();
  await page.getByTestId('drive-page').waitFor();
  assert.match((await page.getByTestId('drive-title').textContent()) ?? '', /^Autohof fast charger → Home$/);
  await page.locator('[data-testid="drive-map"] path.route-line').waitFor({ timeout: 15_000 });
  assert.ok(Number(await page.getByTestId('drive-map').getAttribute('data-points')) > 100, 'the route has its points');
  for (const c of ['chart-speed', 'chart-drive-soc']) await page.locator(`[data-testid="${c}"] canvas[data-breaks]`).waitFor({ timeout: 15_000 });
  const gpx = await page.request.get(`${base}${(await page.getByTestId('drive-gpx').getAttribute('href')) ?? ''}`);
  assert.equal(gpx.status(), 200);
  const gpxText = await gpx.text();
  assert.match(gpxText, /<gpx[^>]*version="1\.1"/);
  assert.ok((gpxText.match(/<trkpt /g) ?? []).length > 100, 'the GPX holds the route');
  await bothWidths(page, 'drive', async () => {
    await page.locator('[data-testid="drive-map"] path.route-line').waitFor();
  });

  // --- Charges: kind, cost with currency; a charge's power and SOC ---
  await page.getByTestId('tab-charges').click();
  const chargeRows = page.getByTestId('charge-row');
  await chargeRows.first().waitFor({ timeout: 15_000 });
  assert.equal(await chargeRows.count(), 2);
  const dc = chargeRows.filter({ hasText: 'Autohof fast charger' });
  assert.equal(await dc.getAttribute('data-kind'), 'dc');
  assert.match((await dc.getByTestId('charge-cost').textContent()) ?? '', /€\d+\.\d\d/);
  assert.match((await chargeRows.filter({ hasText: 'Home' }).getByTestId('charge-cost').textContent()) ?? '', /€\d+\.\d\d/);
  assert.match((await page.getByTestId('charges-status').textContent()) ?? '', /2 charges · .*kWh added · €/);
  await bothWidths(page, 'charges');
  await dc.locator('a').click();
  await page.getByTestId('charge-page').waitFor();
  for (const c of ['chart-charge-power', 'chart-charge-soc']) await page.locator(`[data-testid="${c}"] canvas[data-breaks]`).waitFor({ timeout: 15_000 });
  assert.match((await page.getByTestId('charge-page-cost').textContent()) ?? '', /€\d+\.\d\d/);
  await bothWidths(page, 'charge');

  // --- Battery: figures, capacity and SOH charts ---
  await page.getByTestId('tab-battery').click();
  await page.locator('[data-testid="battery-estimate"] .figure-value').filter({ hasText: /kWh/ }).waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="chart-capacity"] canvas[data-breaks]').waitFor({ timeout: 15_000 });
  await bothWidths(page, 'battery');

  // --- Stats: bars per month, the period switch ---
  await page.getByTestId('tab-stats').click();
  await page.locator('[data-testid="chart-stats-distance"] canvas[data-bars]').waitFor({ timeout: 15_000 });
  assert.ok(Number(await page.locator('[data-testid="chart-stats-distance"] canvas').getAttribute('data-bars')) >= 1);
  assert.match((await page.getByTestId('stats-status').textContent()) ?? '', /3 drives · 2 charges/);
  await bothWidths(page, 'stats');
  await page.getByTestId('stats-period').selectOption('day');
  await page.locator('[data-testid="stats-status"]', { hasText: /^3\d periods/ }).waitFor({ timeout: 15_000 });

  // --- History: the charts only, the SOC line broken across the three silent hours ---
  await page.getByTestId('tab-history').click();
  const soc = page.locator('[data-testid="chart-soc"] canvas[data-breaks]');
  await soc.waitFor({ timeout: 15_000 });
  assert.ok(Number(await soc.getAttribute('data-breaks')) >= 1, 'the SOC line breaks at the gap');
  assert.equal(await page.getByTestId('trips').count(), 0);
  await bothWidths(page, 'history');

  // --- Places: listed on the map, one refused, one added, one deleted ---
  await page.getByTestId('nav-places').click();
  const placeRows = page.getByTestId('place-row');
  await placeRows.first().waitFor({ timeout: 15_000 });
  assert.equal(await placeRows.count(), 2);
  assert.equal(await page.locator('[data-testid="places-map"] path.place-circle').count(), 2);
  await bothWidths(page, 'places');
  // a click on the map sets the centre
  await page.getByTestId('places-map').click({ position: { x: 120, y: 120 } });
  assert.notEqual(await page.getByTestId('place-lat').inputValue(), '');
  assert.notEqual(await page.getByTestId('place-lon').inputValue(), '');
  await page.getByTestId('place-name').fill('Work');
  await page.getByTestId('place-lat').fill('48.1771');
  await page.getByTestId('place-lon').fill('11.5562');
  await page.getByTestId('place-radius').fill('9000');
  await page.getByTestId('place-pricePerKwh').fill('0.25');
  await page.getByTestId('tou-add').click();
  await page.getByTestId('tou-price').fill('0.15');
  await page.getByTestId('place-save').click();
  const radiusError = page.getByTestId('place-error-radius');
  await radiusError.waitFor({ timeout: 15_000 });
  assert.match((await radiusError.textContent()) ?? '', /radius/i);
  await page.setViewportSize(PHONE);
  await fitsWidth(page, 'place error');
  await radiusError.scrollIntoViewIfNeeded();
  await shot(page, 'drives-place-error-390');
  await page.setViewportSize(DESKTOP);
  await page.getByTestId('place-radius').fill('200');
  await page.getByTestId('place-save').click();
  await placeRows.filter({ hasText: 'Work' }).waitFor({ timeout: 15_000 });
  assert.equal(await placeRows.count(), 3);
  assert.match((await placeRows.filter({ hasText: 'Work' }).getByTestId('place-tariff').textContent()) ?? '', /€0\.25\/kWh · 1 time-of-use window/);
  assert.equal(await radiusError.isHidden(), true);
  await shot(page, 'drives-place-added-1366');
  page.once('dialog', (d) => void d.accept());
  await placeRows.filter({ hasText: 'Work' }).getByTestId('place-delete').click();
  await placeRows.filter({ hasText: 'Work' }).waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal(await placeRows.count(), 2);

  // --- a car with nothing yet: empty states that say how data comes ---
  await page.goto(`${base}/#/vehicle/EMPTY1/drives`);
  await page.getByTestId('drives-empty').waitFor({ timeout: 15_000 });
  assert.match((await page.getByTestId('drives-empty').textContent()) ?? '', /ignition goes on and off.*vts module --simulate day/);
  await page.getByTestId('tab-charges').click();
  await page.getByTestId('charges-empty').waitFor({ timeout: 15_000 });
  await page.getByTestId('tab-battery').click();
  await page.getByTestId('battery-empty').waitFor({ timeout: 15_000 });
  await bothWidths(page, 'empty-battery');

  assert.deepEqual(errors, [], 'no script errors on the page');
});
