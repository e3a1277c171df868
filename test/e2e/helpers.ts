/**
 * Set-up shared by the dashboard's end-to-end tests (test/e2e/*.test.ts): a real `vts serve`
 * child process, an emulated vehicle on its v2 link, Debian's Chromium driven by playwright-core,
 * screenshots in test-artifacts/e2e/ (git-ignored), and a signed-in page.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { CHROMIUM_PATH } from '../support/services.js';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;
export const ARTIFACTS = new URL('../../test-artifacts/e2e/', import.meta.url).pathname;
export const WEB_BUILD = new URL('../../dist/web/index.html', import.meta.url).pathname;
export const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

export const DESKTOP = { width: 1366, height: 900 };
export const WIDE = { width: 1920, height: 1080 };
export const PHONE = { width: 390, height: 844 };

export interface Served {
  child: ChildProcess;
  http: number;
  mp: number;
}

/** `vts serve` on free ports of 127.0.0.1 with the store in `dataDir`; `extra`: more options. */
export async function serve(dataDir: string, extra: string[] = []): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      ...['--import', 'tsx', MAIN, 'serve', '--bind', '127.0.0.1', '--data-dir', dataDir],
      ...['--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off', '--rate-limit-burst', '0', '--log-level', 'warn'],
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`vts serve exited with ${code}`)));
  });
  const ports = JSON.parse(line) as { http: number; mp: number };
  return { child, http: ports.http, mp: ports.mp };
}

/** Stops the server and waits for it to exit. */
export async function stopServer(server: Served): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
  server.child.kill('SIGTERM');
  await exited;
}

/** The emulated car DEMO1 (car password NETPASS) reporting every second. */
export function emulator(port: number, seed: number): EmulatedModule {
  return new EmulatedModule({
    id: 'DEMO1',
    seed,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port },
    intervals: { connected: 1, idle: 1 },
    log: quiet,
  });
}

export function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Opens the dashboard and signs in; resolves once the vehicle list is there. */
export async function signIn(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('nav-account').waitFor({ timeout: 15_000 });
}

/** Polls `probe` (a query, not a sleep as an assertion) until it returns a defined value. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
