/**
 * A v3 car on the embedded MQTT broker: its metrics fire the same rules as a v2 car's records; the
 * alert reaches the owner's webhook and the apps connected at that moment (`PI…`), and nothing of
 * it reaches another owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync } from 'mqtt';
import { eventually } from '../mp/helpers.js';
import { mqttHarness } from '../mqtt/harness.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { json, sleep, type Hook } from './helpers.js';

test('a v3 car: soc-reached from its metrics, to the webhook and to the app; another owner hears nothing', async (t) => {
  const receiver = await HttpReceiver.start();
  t.after(() => receiver.close());
  const h = await mqttHarness(t, 'embedded', {}, {
    push: { webhookAllow: ['127.0.0.1'], limit: { burst: 100, perMinute: 600 }, retrySeconds: 1, timeoutSeconds: 3, pollMs: 100 },
    alerts: { pollMs: 200, scanSeconds: 1 },
  });
  const store = h.t.server.store;
  const id = await h.vehicle('V3CAR');
  await store.push.addTarget(h.ownerId, 'webhook', `${receiver.url}/demo`, '', 0);
  const otherId = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHER1', otherId, 'NETPASS');
  await store.push.addTarget(otherId, 'webhook', `${receiver.url}/other`, '', 0);
  const r = await h.asUser(`/api/alerts/${id}`, json('POST', { kind: 'soc-reached', threshold: 80 }));
  assert.equal(r.status, 201, r.body);
  const rule = JSON.parse(r.body) as { id: number };
  // the other owner's rule on their own car, which never charges
  assert.equal((await h.request('/api/alerts/OTHER1?username=other&password=otherpass', json('POST', { kind: 'soc-reached', threshold: 1 }))).status, 201);

  const app = await h.app(id);
  const otherApp = await h.app('OTHER1');
  const heard: string[] = [];
  const otherHeard: string[] = [];
  for (const [c, into] of [[app, heard], [otherApp, otherHeard]] as const) {
    void (async () => {
      for (;;) {
        const m = await c.next().catch(() => null);
        if (!m) return;
        if (m.code === 'P') into.push(m.data);
      }
    })();
  }

  const prefix = `ovms/demo/${id}/`;
  const car = await connectAsync(h.brokerUrl, { clientId: id, username: 'demo', password: 'demopass', clean: true, reconnectPeriod: 0 });
  t.after(() => car.endAsync(true));
  await car.publishAsync(`${prefix}metric/s/v3/connected`, 'yes');
  const publish = async (soc: number, state: string) => {
    await car.publishAsync(`${prefix}metric/v/b/soc`, String(soc));
    await car.publishAsync(`${prefix}metric/v/c/charging`, state === 'charging' ? 'yes' : 'no');
    await car.publishAsync(`${prefix}metric/v/c/state`, state);
    await sleep(1200);
  };
  await publish(70, 'charging');
  await publish(78, 'charging');
  await publish(82, 'charging');
  await publish(85, 'charging');

  const hooks = await eventually(() => {
    const got = receiver.requestsTo('/demo').map((x) => x.json<Hook>());
    return got.length >= 1 ? got : undefined;
  }, 'the webhook', 20_000);
  assert.deepEqual([hooks[0]!.vehicleId, hooks[0]!.event, hooks[0]!.rule, hooks[0]!.alertType], [id, 'soc-reached', rule.id, 'I']);
  assert.match(hooks[0]!.text, /^V3CAR reached 82 %/);
  await eventually(() => (heard.some((p) => p.startsWith('IV3CAR reached 82 %')) ? true : undefined), 'the app hears PI', 20_000);
  await sleep(1500);
  assert.equal(receiver.requestsTo('/demo').length, 1, 'once');
  assert.deepEqual(receiver.requestsTo('/other'), [], "nothing to the other owner's webhook");
  assert.deepEqual(otherHeard, [], "nothing to the other owner's app");
});
