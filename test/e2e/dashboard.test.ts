/**
 * The web dashboard end to end (issue #7): a real `vts serve` child process, an emulated vehicle
 * on the v2 link, and Debian's Chromium driven by playwright-core (`.ci/run` installs chromium when
 * it is missing; this test fails, not skips, without it). Sign in, see the vehicle, watch a live
 * update arrive, run a console command and read its output, create and revoke a token.
 * Screenshots go to test-artifacts/e2e/ (git-ignored).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Page } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { createLogger } from '../../src/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { openStore } from '../../src/store/open.js';

const CHROMIUM = process.env.VTS_CHROMIUM ?? '/usr/bin/chromium';
const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;
const ARTIFACTS = new URL('../../test-artifacts/e2e/', import.meta.url).pathname;
const WEB_BUILD = new URL('../../dist/web/index.html', import.meta.url).pathname;
const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

interface Served {
  child: ChildProcess;
  http: number;
  mp: number;
}

async function serve(dataDir: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'serve', '--bind', '127.0.0.1', '--data-dir', dataDir, '--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off', '--rate-limit-burst', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`vts serve exited with ${code}`)));
  });
  const ports = JSON.parse(line) as { http: number; mp: number };
  return { child, http: ports.http, mp: ports.mp };
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

test('dashboard: sign in, see the vehicle, a live update, a console command, a token created and revoked', async (t) => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();

  const server = await serve(dataDir);
  const mod = new EmulatedModule({
    id: 'DEMO1',
    seed: 11,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: server.mp },
    intervals: { connected: 1, idle: 1 },
    log: quiet,
  });
  await mod.start();
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(async () => {
    await browser.close();
    await mod.stop();
    server.child.kill('SIGTERM');
    await new Promise<void>((r) => server.child.once('exit', () => r()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const base = `http://127.0.0.1:${server.http}`;

  // sign in (a wrong password first)
  await page.goto(`${base}/`);
  await page.getByTestId('login-username').fill('demo');
  await page.getByTestId('login-password').fill('wrong');
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login-error').waitFor();
  await page.getByTestId('login-password').fill('demopass');
  await page.getByTestId('login-submit').click();

  // the vehicle list shows DEMO1 online on v2 with its SOC
  const row = page.locator('[data-testid="vehicle-row"][data-vehicle="DEMO1"]');
  await row.waitFor({ timeout: 15_000 });
  // the SOC cell carries the number in data-value once the car's S record is in
  await row.locator('[data-testid="row-soc"]:not([data-value=""])').waitFor({ timeout: 15_000 });
  assert.match((await row.getByTestId('row-link').textContent()) ?? '', /v2/i);
  await shot(page, '1-vehicles');

  // the vehicle page: a live update arrives
  await row.click();
  await page.getByTestId('live-soc').waitFor();
  mod.metrics.set('v.b.soc', 42.5, mod.now());
  await page.locator('[data-testid="live-soc"][data-value="42.5"]').waitFor({ timeout: 15_000 });
  await page.getByTestId('map').waitFor();
  await shot(page, '2-live');

  // the console runs a command and shows its output
  await page.getByTestId('tab-console').click();
  const input = page.getByTestId('console-input');
  await input.fill('echo hello-from-e2e');
  await input.press('Enter');
  // the transcript shows the command line, then its output: the word twice
  await page.getByTestId('console-output').filter({ hasText: /hello-from-e2e[\s\S]*hello-from-e2e/ }).waitFor({ timeout: 15_000 });
  await shot(page, '3-console');

  // account: create a token (shown once), then revoke it
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
  await shot(page, '4-token');
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('token-row').first().getByTestId('token-revoke').click();
  await page.getByTestId('token-row').first().waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal((await fetch(`${base}/api/vehicles?username=demo&password=${token}`)).status, 401);
  await shot(page, '5-revoked');
  assert.deepEqual(errors, [], 'no script errors on the page');
});
