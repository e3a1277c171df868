/**
 * ABRP in a cluster (src/abrp/abrp-service.ts): one node sends for a vehicle, the node that hears
 * its car. Two services on one database stand for two nodes: the car moves from the first to the
 * second, which continues from the link's row (the last send and its telemetry) instead of
 * sending again at once; a link removed on one node stops the other's sends at once; a back-off
 * written by one is kept by the other; a node with another token key cannot open the token and
 * says so without stopping the link.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { AbrpService } from '../../src/abrp/abrp-service.js';
import type { CarDataEvent } from '../../src/hub/hub.js';
import { createLogger } from '../../src/util/log.js';
import { freshStore, seed } from '../store/helpers.js';

const T0 = 1_780_000_000;

async function abrpStandIn(t: TestContext) {
  const tlms: Record<string, unknown>[] = [];
  const statuses: number[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    tlms.push(JSON.parse(url.searchParams.get('tlm') ?? '{}') as Record<string, unknown>);
    res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tlms, statuses };
}

const event = (code: string, data: string, time: number): CarDataEvent => ({ vehicleId: 'CAR1', ownerId: 1, code, data, time, historical: false, source: 'v2' });
const S = (soc: number) => `${soc},K,0,0,stopped,standard,300`;
const D_PARKED = '0,0,5,20,25,21,0,123456,0,600,12';

test('the car moves to another node: it continues from the row; an unlink or a back-off on one node holds on the other', async (t) => {
  const { store } = await freshStore(t);
  await seed(store, 'CAR1');
  const owner = (await store.getOwnerByName('demo'))!;
  const abrp = await abrpStandIn(t);
  const clock = { t: T0 };
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
  const key = randomBytes(32);
  const node = () => new AbrpService(store, log, () => clock.t, { apiKey: 'k-123456', url: abrp.url, tokenKey: key, tickMs: 3_600_000 });
  const a = node();
  const b = node();
  t.after(async () => {
    await a.close();
    await b.close();
  });
  /** The node hears the records (in one go, as a car sends them), and does what they cause. */
  const hear = async (svc: AbrpService, ...records: [string, string][]) => {
    for (const [code, data] of records) svc.hear(event(code, data, clock.t));
    await svc.settled();
  };

  await a.link('CAR1', owner.id, 'token-abcdef-1');
  await hear(a, ['S', S(80)], ['D', D_PARKED]);
  assert.equal(abrp.tlms.length, 1, 'node A sent the first telemetry');

  // the car reconnects to node B a minute later: parked, nothing significant, so nothing is sent
  clock.t += 60;
  await hear(b, ['S', S(80)], ['D', D_PARKED]);
  assert.equal(abrp.tlms.length, 1, 'node B knows the last send from the row');
  clock.t += 5;
  await hear(b, ['S', S(70)]);
  assert.equal(abrp.tlms.length, 2, 'a significant change since what A sent');
  assert.equal(abrp.tlms[1]!.soc, 70);

  // a 500 on node B: its back-off is in the row, and node A (the car back there) keeps it
  abrp.statuses.push(500);
  clock.t += 5;
  await hear(b, ['S', S(69)]);
  const failing = (await store.abrp.getLink('CAR1'))!;
  assert.deepEqual([failing.state, failing.retryAt], ['failing', clock.t + 30]);
  clock.t += 5;
  await hear(a, ['S', S(68)]);
  assert.equal(abrp.tlms.length, 3, 'node A waits for the retry time written by B');
  clock.t = failing.retryAt!;
  a.tick();
  await a.settled();
  assert.equal(abrp.tlms.length, 4);
  assert.equal((await store.abrp.getLink('CAR1'))!.state, 'ok');

  // unlinked on node B: node A, which hears the car, sends nothing more
  assert.equal(await b.unlink('CAR1'), true);
  clock.t += 5;
  await hear(a, ['S', S(50)]);
  assert.equal(abrp.tlms.length, 4);
  assert.ok(lines.join('').includes('sending failed') && !lines.join('').includes('token-abcdef-1'), 'the failure is logged, the token not');
});

test('a node whose token key differs cannot open the token: the link fails (backing off) and says why', async (t) => {
  const { store } = await freshStore(t);
  await seed(store, 'CAR1');
  const owner = (await store.getOwnerByName('demo'))!;
  const abrp = await abrpStandIn(t);
  const clock = { t: T0 };
  const log = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
  const settings = { apiKey: 'k-123456', url: abrp.url, tickMs: 3_600_000 };
  const right = new AbrpService(store, log, () => clock.t, { ...settings, tokenKey: randomBytes(32) });
  const wrong = new AbrpService(store, log, () => clock.t, { ...settings, tokenKey: randomBytes(32) });
  t.after(async () => {
    await right.close();
    await wrong.close();
  });
  await right.link('CAR1', owner.id, 'token-abcdef-1');
  wrong.hear(event('S', S(80), clock.t));
  await wrong.settled();
  assert.equal(abrp.tlms.length, 0);
  const link = (await store.abrp.getLink('CAR1'))!;
  assert.equal(link.state, 'failing');
  assert.match(link.lastError, /cannot be opened with this server's token key/);
});

test('a link made on another node starts on the node that holds the car once it lists the links again; unlinked cars cost no read', async (t) => {
  const { store } = await freshStore(t);
  await seed(store, 'CAR1');
  const owner = (await store.getOwnerByName('demo'))!;
  const abrp = await abrpStandIn(t);
  const clock = { t: T0 };
  const log = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
  const key = randomBytes(32);
  const settings = { apiKey: 'k-123456', url: abrp.url, tokenKey: key, tickMs: 3_600_000 };
  const holder = new AbrpService(store, log, () => clock.t, settings);
  const other = new AbrpService(store, log, () => clock.t, settings);
  t.after(async () => {
    await holder.close();
    await other.close();
  });
  // the holder hears the car before any link: one listing, and no read of the vehicle's row
  let rowReads = 0;
  const getLink = store.abrp.getLink.bind(store.abrp);
  store.abrp.getLink = (vid) => (rowReads++, getLink(vid));
  holder.hear(event('S', S(80), clock.t));
  holder.hear(event('D', D_PARKED, clock.t));
  await holder.settled();
  assert.equal(rowReads, 0);

  await other.link('CAR1', owner.id, 'token-abcdef-1');
  clock.t += 10;
  holder.hear(event('S', S(79), clock.t));
  await holder.settled();
  assert.equal(abrp.tlms.length, 0, 'not listed yet on the holder');
  clock.t += 60;
  holder.tick();
  await holder.settled();
  assert.equal(abrp.tlms.length, 1, 'listed again: sent');
  assert.equal(abrp.tlms[0]!.soc, 79);
});
