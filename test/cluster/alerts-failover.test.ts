/**
 * The alerts the server computes, in a cluster (issue 30, src/alerts/alert-service.ts): two real
 * nodes on one PostgreSQL schema and one Redis, a webhook receiver per owner.
 * - A rule made through node B's API applies to the car on node A (A reads the rule counter every
 *   2 s), and A decides it; another owner's webhook never hears the first owner's alerts.
 * - A charge-stopped wait under way on node A when A dies (kill -9): the car logs in on node B and
 *   stays stopped; B ends the wait from the state A saved, and the alert comes once.
 * - The car's node dies and the car does not come back: once the cluster has found the node
 *   dead, the node that leads the `alerts` role (B, when A led it) finds the car connected nowhere
 *   and raises `offline`, once.
 * Real nodes on the real clock: the tests wait on the webhook receiver and the store, never for a
 * fixed time; "once" is a second look a little after the first alert.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/password.js';
import type { AlertState } from '../../src/core/alerts/engine.js';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, roundTrip } from '../mp/helpers.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { sleep, sRecord, type Hook } from '../alerts/helpers.js';
import { skipCluster, startCluster, VEHICLE, type Cluster, type Node } from './harness.js';

/** Bound of the polls: a guard against a hang, not a timing assertion (a node is found dead after 10 s). */
const WAIT = 45_000;
/** How long "nothing more" is watched for after the alert. */
const SETTLE = 3000;
const NODE_FLAGS = ['--webhook-allow', '127.0.0.1', '--push-retry', '1'];
const now = () => Math.floor(Date.now() / 1000);

async function receiver(t: Parameters<typeof startCluster>[0]): Promise<HttpReceiver> {
  const rx = await HttpReceiver.start();
  t.after(() => rx.close());
  return rx;
}

const hooksOf = (rx: HttpReceiver, path: string): Hook[] => rx.requestsTo(path).map((r) => r.json<Hook>());

function waitHooks(rx: HttpReceiver, path: string, n: number): Promise<Hook[]> {
  return eventually(() => (hooksOf(rx, path).length >= n ? hooksOf(rx, path) : undefined), `${n} webhook calls to ${path}`, WAIT);
}

/** The car of `vehicleId` logged in on `node` (its `Z` read). */
async function carOn(c: Cluster, node: Node, vehicleId = VEHICLE): Promise<MpClient> {
  const car = await c.mp(node, 'C', vehicleId);
  assert.equal((await car.next()).code, 'Z');
  return car;
}

/** Sends the `S` record and waits until the node handled it. */
async function send(car: MpClient, data: string): Promise<void> {
  car.send('S', data);
  await roundTrip(car);
}

/** The saved engine state of the vehicle, once it satisfies `ok`. */
function savedState(c: Cluster, ok: (s: AlertState) => boolean, what: string): Promise<AlertState> {
  return eventually(async () => {
    const saved = await c.store.alerts.loadState(VEHICLE);
    const state = saved ? (JSON.parse(saved.state) as AlertState) : undefined;
    return state && ok(state) ? state : undefined;
  }, what, WAIT);
}

/** Whether the node logged an alert fired for the vehicle. */
const fired = (node: Node, vehicleId = VEHICLE): boolean => node.run.stderr.some((l) => l.includes('"msg":"alert fired"') && l.includes(`"vehicle":"${vehicleId}"`));

/** POST /api/alerts/<vehicle> on the node as `user` (password `<user>pass`). */
async function addRule(node: Node, user: string, vehicleId: string, rule: Record<string, unknown>): Promise<Response> {
  const url = `http://127.0.0.1:${node.http}/api/alerts/${vehicleId}?username=${user}&password=${user}pass`;
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
}

test("a rule made on node B applies to the car on node A; another owner's webhook never hears of it", { skip: skipCluster }, async (t) => {
  const rx = await receiver(t);
  const c = await startCluster(t, [], { extra: NODE_FLAGS });
  const other = await c.store.addOwner('other', await hashPassword('otherpass', { N: 1024, r: 8, p: 1 }), '*');
  await c.store.addVehicle({ id: 'THEIRS', ownerId: other.id, name: '', carPassword: 'NETPASS' });
  await c.store.push.addTarget(c.ownerId, 'webhook', `${rx.url}/demo`, '', 0);
  await c.store.push.addTarget(other.id, 'webhook', `${rx.url}/other`, '', 0);
  const a = await c.start('a');
  const b = await c.start('b');

  // demo's car on A, other's on B, both below 50 %
  const mine = await carOn(c, a);
  const theirs = await carOn(c, b, 'THEIRS');
  await send(mine, sRecord(40, 'stopped'));
  await send(theirs, sRecord(30, 'stopped'));

  // the rules, made on B; other cannot make one for demo's car
  const refused = await addRule(b, 'other', VEHICLE, { kind: 'soc-below', threshold: 50 });
  assert.notEqual(refused.status, 201, await refused.text());
  const made = await addRule(b, 'demo', VEHICLE, { kind: 'soc-below', threshold: 50 });
  assert.equal(made.status, 201, await made.clone().text());
  const rule = ((await made.json()) as { id: number }).id;
  const made2 = await addRule(b, 'other', 'THEIRS', { kind: 'soc-below', threshold: 50 });
  assert.equal(made2.status, 201, await made2.clone().text());
  const rule2 = ((await made2.json()) as { id: number }).id;

  // the cars go on reporting; A learns of the rule from the counter and fires at the next record
  const [hook] = await eventually(async () => {
    await send(mine, sRecord(40, 'stopped'));
    await send(theirs, sRecord(30, 'stopped'));
    const got = hooksOf(rx, '/demo');
    if (got.length > 0 && hooksOf(rx, '/other').length > 0) return got;
    await sleep(500);
    return undefined;
  }, 'the alerts of both owners', WAIT);
  assert.equal(hook!.event, 'soc-below');
  assert.equal(hook!.rule, rule);
  assert.equal(hook!.vehicleId, VEHICLE);
  const [theirHook] = hooksOf(rx, '/other');
  assert.equal(theirHook!.event, 'soc-below');
  assert.equal(theirHook!.rule, rule2);
  assert.equal(theirHook!.vehicleId, 'THEIRS');
  // the node that holds each car decided it
  assert.ok(fired(a), 'A raised the alert of its car');
  assert.ok(!fired(b), 'B did not raise the alert of the car on A');
  assert.ok(fired(b, 'THEIRS') && !fired(a, 'THEIRS'), 'B raised the alert of its car');

  await send(mine, sRecord(40, 'stopped'));
  await send(theirs, sRecord(30, 'stopped'));
  await sleep(SETTLE);
  assert.deepEqual(hooksOf(rx, '/demo').map((h) => [h.vehicleId, h.event]), [[VEHICLE, 'soc-below']], 'demo: its own alert, once');
  assert.deepEqual(hooksOf(rx, '/other').map((h) => [h.vehicleId, h.event]), [['THEIRS', 'soc-below']], "other: its own alert, once, none of demo's");
});

test('kill -9 of node A in the middle of a charge-stopped wait: the car on node B stays stopped, one alert from B', { skip: skipCluster }, async (t) => {
  const rx = await receiver(t);
  const c = await startCluster(t, [], { extra: NODE_FLAGS });
  await c.store.push.addTarget(c.ownerId, 'webhook', `${rx.url}/hook`, '', 0);
  const rule = (await c.store.alerts.addRule(VEHICLE, { kind: 'charge-stopped', after: 5 }, now())).id;
  const a = await c.start('a');
  const b = await c.start('b');

  const onA = await carOn(c, a);
  await send(onA, sRecord(50, 'charging'));
  await sleep(1100);
  await send(onA, sRecord(51, 'stopped'));
  // A saved the pending stop (a deciding change is saved at once); it dies in the wait
  const state = await savedState(c, (s) => s.facts.stop !== null, 'the pending stop saved by A');
  await a.kill();
  if (hooksOf(rx, '/hook').length > 0) t.diagnostic('the alert came before the kill (a very slow machine): the failover is then not in the wait');

  const onB = await carOn(c, b);
  await send(onB, sRecord(51, 'stopped'));
  const [hook] = await waitHooks(rx, '/hook', 1);
  assert.equal(hook!.event, 'charge-stopped');
  assert.equal(hook!.rule, rule);
  assert.equal(hook!.text, 'cluster car (CLCAR): charging stopped at 51 % and did not resume');
  const after = await savedState(c, (s) => s.memos[String(rule)]?.at === state.facts.stop!.at, 'the fired stop saved');
  assert.equal(after.facts.stop!.at, state.facts.stop!.at, 'the stop A saw');
  assert.ok(fired(b), 'B raised it');

  await send(onB, sRecord(51, 'stopped'));
  await sleep(SETTLE);
  assert.deepEqual(hooksOf(rx, '/hook').map((h) => h.event), ['charge-stopped'], 'once');
});

test('kill -9 of the node that holds the car and leads, the car gone: offline fires once, from the other node', { skip: skipCluster }, async (t) => {
  const rx = await receiver(t);
  const c = await startCluster(t, [], { extra: NODE_FLAGS });
  await c.store.push.addTarget(c.ownerId, 'webhook', `${rx.url}/hook`, '', 0);
  const rule = (await c.store.alerts.addRule(VEHICLE, { kind: 'offline', after: 5 }, now())).id;
  const a = await c.start('a');
  const b = await c.start('b');
  const leads = (n: Node) => n.run.stderr.some((l) => l.includes('"msg":"cluster: this node leads"') && l.includes('"role":"alerts"'));
  await eventually(() => (leads(a) ? true : undefined), 'A leads the alerts (it started first)', WAIT);

  const onA = await carOn(c, a);
  await send(onA, sRecord(50, 'stopped'));
  await savedState(c, (s) => s.facts.online === true, 'the link saved by A');
  await a.kill();

  // nobody holds the car: B, once it leads and has found A dead, looks at it
  const [hook] = await waitHooks(rx, '/hook', 1);
  assert.equal(hook!.event, 'offline');
  assert.equal(hook!.rule, rule);
  assert.ok(leads(b), 'B took the lead');
  assert.ok(fired(b), 'B raised it');
  await sleep(SETTLE);
  assert.deepEqual(hooksOf(rx, '/hook').map((h) => h.event), ['offline'], 'once');
});
