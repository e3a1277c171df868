/**
 * The dashboard's Integrations tab end to end: a real `vts serve` child process with its embedded
 * broker, the emulated car DEMO1, Debian's Chromium driven by playwright-core (skipped with one line
 * when it is missing). The tab shows the broker, the user and the vehicle's topics; the token it
 * makes for Home Assistant logs in to the broker, which hands that login the vehicle's discovery
 * and its state (what Home Assistant would receive). Screenshots at 1366 and 390 px go to
 * test-artifacts/e2e/ (git-ignored).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { chromium, needs, requireServices } from '../support/services.js';
import { DESKTOP, emulator, launchBrowser, PHONE, serve, shot, signIn, stopServer, until, WEB_BUILD } from './helpers.js';

const SKIP = await needs(chromium);

test('dashboard: the Integrations tab connects Home Assistant with a token made there', { skip: SKIP }, async (t) => {
  await requireServices(chromium);
  assert.ok(existsSync(WEB_BUILD), 'dist/web is missing: run `npm run build` (npm install does it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-e2e-ha-'));
  const store = await openStore(dataDir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Demo car', carPassword: 'NETPASS' });
  await store.close();

  const server = await serve(dataDir, ['--mqtt-port', '0']);
  const mod = emulator(server.mp, 29);
  await mod.start();
  const browser: Browser = await launchBrowser();
  const base = `http://127.0.0.1:${server.http}`;
  t.after(async () => {
    await browser.close();
    await mod.stop();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const info = (await (await fetch(`${base}/api/integrations/DEMO1?username=demo&password=demopass`)).json()) as { mqtt: { ports: { mqtt: number } } };
  const mqttPort = info.mqtt.ports.mqtt;

  for (const [viewport, name] of [
    [DESKTOP, 'integrations-1366'],
    [PHONE, 'integrations-390'],
  ] as const) {
    const page = await browser.newPage({ viewport, locale: 'en-US' });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await signIn(page, base, 'demo', 'demopass');
    await page.goto(`${base}/#/vehicle/DEMO1/integrations`);
    await page.getByTestId('ha-card').waitFor();
    assert.equal(await page.getByTestId('ha-topics').textContent(), 'ovms/demo/DEMO1/#');
    assert.equal(await page.getByTestId('ha-discovery').textContent(), 'homeassistant/device/vts_DEMO1/config');
    assert.match((await page.getByTestId('ha-ports').textContent()) ?? '', new RegExp(`^${mqttPort} \\(MQTT\\)`));
    await until(async () => ((await page.getByTestId('ha-online').textContent())?.startsWith('online') ? true : undefined), 'the car online', 15_000).catch(async () => {
      // the tab reads the link once: a car that connected later shows after a reload
      await page.reload();
      await page.getByTestId('ha-online').waitFor();
    });
    await shot(page, `${name}-start`);
    await page.getByTestId('ha-make-token').click();
    const token = await until(async () => {
      const text = (await page.getByTestId('ha-token').textContent())?.trim();
      return text ? text : undefined;
    }, 'the token');
    await shot(page, name);
    assert.deepEqual(errors, []);
    await page.close();

    // the token is what Home Assistant logs in with: it receives the vehicle's discovery and state
    const ha = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { username: 'demo', password: token, reconnectPeriod: 0, clean: true });
    const got = new Map<string, string>();
    ha.on('message', (topic, payload) => got.set(topic, payload.toString()));
    await ha.subscribeAsync(['homeassistant/#', 'ovms/demo/DEMO1/#']);
    const config = await until(async () => got.get('homeassistant/device/vts_DEMO1/config'), 'the discovery');
    const payload = JSON.parse(config) as { device: { name: string }; components: Record<string, unknown> };
    assert.equal(payload.device.name, 'Demo car');
    await until(async () => got.get('ovms/demo/DEMO1/metric/v/b/soc'), 'the SOC');
    await until(async () => (got.get('ovms/demo/DEMO1/vts/availability') === 'online' ? true : undefined), 'online');
    await ha.endAsync();
  }
});
