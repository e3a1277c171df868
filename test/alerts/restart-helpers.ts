/**
 * Shared by the restart tests of the alerts (restart.test.ts, pending-alert.test.ts): `vts serve`
 * as a child process on a database of the test's own (SQLite, or a fresh PostgreSQL schema when
 * VTS_TEST_DATABASE is set), killed with SIGKILL and started again; the rules and the webhook
 * target written to the store before the first start.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/password.js';
import type { AlertState } from '../../src/core/alerts/engine.js';
import type { RuleSettings } from '../../src/core/alerts/rules.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { FREE_PORTS, listening, serveProcess, type Running } from '../cli/serve-process.js';
import { eventually, roundTrip } from '../mp/helpers.js';
import { TEST_DATABASE, freshSchema } from '../support/postgres.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { sleep, type Hook } from './helpers.js';

/** Bound of the polls: a guard against a hang, not a timing assertion. */
export const WAIT = 45_000;
/** How long "nothing more" is watched for after the alert that would follow a repeat. */
export const SETTLE = 2500;

export interface Setup {
  receiver: HttpReceiver;
  /** A store of the test's own on the server's database (the checks; WAL lets it read beside the server). */
  store: Store;
  ownerId: number;
  ruleIds: number[];
  /** Starts `vts serve`; returns it with its MP port once it listens. */
  serve(): Promise<{ run: Running; mp: number }>;
  /** The car logged in (its `Z` read). */
  car(mp: number): Promise<MpClient>;
  hooks(): Hook[];
  /** Waits until `n` webhook bodies arrived. */
  waitHooks(n: number): Promise<Hook[]>;
  /** The saved engine state of the car, when it satisfies `ok`. */
  savedState(ok: (s: AlertState) => boolean, what: string): Promise<AlertState>;
  /** Waits until every notification of the car is delivered (none left for the next life to send again). */
  delivered(n: number): Promise<void>;
}

export async function setup(ctx: TestContext, rules: RuleSettings[]): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'vts-alerts-restart-'));
  const schema = TEST_DATABASE ? freshSchema(TEST_DATABASE) : undefined;
  const receiver = await HttpReceiver.start();
  const store = await openStore(dir, { database: schema?.url });
  ctx.after(async () => {
    await receiver.close();
    await store.close();
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: '', carPassword: 'NETPASS' });
  await store.push.addTarget(owner.id, 'webhook', `${receiver.url}/hook`, '', 0);
  const ruleIds: number[] = [];
  for (const r of rules) ruleIds.push((await store.alerts.addRule('TESTCAR', r, Math.floor(Date.now() / 1000))).id);
  const args = [...FREE_PORTS, '--data-dir', dir, ...(schema ? ['--database', schema.url] : []), '--webhook-allow', '127.0.0.1', '--push-retry', '1'];
  const clients: MpClient[] = [];
  ctx.after(() => Promise.all(clients.map((c) => c.close().catch(() => undefined))));
  const hooks = (): Hook[] => receiver.requestsTo('/hook').map((r) => r.json<Hook>());
  return {
    receiver,
    store,
    ownerId: owner.id,
    ruleIds,
    async serve() {
      const run = serveProcess(args);
      ctx.after(async () => {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
        await run.exit;
      });
      const { mp } = (await listening(run)) as { mp: number };
      return { run, mp };
    },
    async car(mp) {
      const car = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
      clients.push(car);
      assert.equal((await car.next()).code, 'Z');
      return car;
    },
    hooks,
    waitHooks: (n) => eventually(() => (hooks().length >= n ? hooks() : undefined), `${n} webhook calls`, WAIT),
    savedState: (ok, what) =>
      eventually(async () => {
        const saved = await store.alerts.loadState('TESTCAR');
        const state = saved ? (JSON.parse(saved.state) as AlertState) : undefined;
        return state && ok(state) ? state : undefined;
      }, what, WAIT),
    async delivered(n) {
      await eventually(async () => {
        const ns = await store.push.listNotifications(owner.id, 'TESTCAR', 10);
        return ns.length === n && ns.every((x) => x.deliveries.every((d) => d.state === 'delivered')) ? true : undefined;
      }, `${n} notifications delivered`, WAIT);
    },
  };
}

/** Sends the records, each in a second of its own (as a car does), and waits until the server handled them. */
export async function play(car: MpClient, records: string[]): Promise<void> {
  for (const data of records) {
    car.send('S', data);
    await roundTrip(car);
    await sleep(1100);
  }
}

export async function kill(run: Running): Promise<void> {
  run.child.kill('SIGKILL');
  await run.exit;
}

export const events = (hooks: Hook[]) => hooks.map((h) => h.event);
