/**
 * Commands from Home Assistant: `ovms/<user>/<vehicle>/vts/set/<charge|climate|wakeup>` runs the
 * MP command through the one command service (audited as the MQTT user, via `mqtt`), answers on
 * `…/vts/result`, and the car's answer shows in the state topics. Only the vehicle's owner with
 * the command right (or the superuser) may; a bad payload, an offline car and a login without the
 * right get their error on the result topic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiToken, newApiToken } from '../../src/auth/api-token.js';
import { mqttHarness, type MqttHarness } from '../mqtt/harness.js';
import { listen, mpCar, soon } from './helpers.js';

const FAST = { stateFlushMs: 20, vehicleResyncMs: 100 };

interface Result {
  command: string;
  payload: string;
  result?: number;
  output?: string;
  error?: string;
  message?: string;
}

/** A client of `user` that sends commands on the topics of `owner`'s vehicle (the superuser may). */
async function results(h: MqttHarness, user: string, password: string, id: string, owner = user) {
  const c = listen(await h.mqtt({ username: user, password }), [`ovms/${owner}/${id}/vts/#`, `ovms/${owner}/${id}/metric/#`]);
  await c.ready;
  const resultTopic = `ovms/${owner}/${id}/vts/result`;
  return {
    c,
    async send(component: string, payload: string): Promise<Result> {
      const before = c.count(resultTopic);
      await c.client.publishAsync(`ovms/${owner}/${id}/vts/set/${component}`, payload);
      await soon(() => (c.count(resultTopic) > before ? true : undefined), `the result of ${component} ${payload}`, 10_000);
      return JSON.parse(c.last(resultTopic)!) as Result;
    },
  };
}

test('charge, climate and wakeup run on the car through the command service, audited as the MQTT user', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  await mpCar(h, id);
  const r = await results(h, h.user, h.password, id);
  const climate = await r.send('climate', 'ON');
  assert.equal(climate.error, undefined, JSON.stringify(climate));
  assert.equal(climate.result, 0);
  const wakeup = await r.send('wakeup', 'PRESS');
  assert.equal(wakeup.result, 0, JSON.stringify(wakeup));
  const charge = await r.send('charge', 'off');
  assert.equal(typeof charge.result, 'number', JSON.stringify(charge));
  const audit = await h.t.server.store.listCommandAudit(id, 10);
  const mine = audit.filter((e) => e.via === 'mqtt');
  assert.deepEqual(
    mine.map((e) => [e.caller, e.command]).sort(),
    [
      ['user:demo', '12'],
      ['user:demo', '18'],
      ['user:demo', '26,1'],
    ].sort(),
    JSON.stringify(audit),
  );
  // the car's answer shows in its state: the climate is on
  await soon(() => (r.c.last(`ovms/demo/${id}/metric/v/e/hvac`) === 'yes' ? true : undefined), 'the climate on in the mirrored state', 15_000);
});

test('a bad payload, an unknown command and an offline car answer their error on the result topic', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const r = await results(h, h.user, h.password, id);
  assert.equal((await r.send('charge', 'maybe')).error, 'VTS_ERR_COMMAND_SYNTAX');
  assert.equal((await r.send('selfdestruct', 'ON')).error, 'VTS_ERR_COMMAND_SYNTAX');
  assert.equal((await r.send('climate', 'ON')).error, 'VTS_ERR_NOT_CONNECTED');
});

test("no command on another owner's vehicle, and none from a login without the command right", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  await mpCar(h, id);
  const otherId = await h.t.addUser('other', 'otherpw');
  void otherId;
  // under its own prefix, naming demo's vehicle: refused
  const other = await results(h, 'other', 'otherpw', id);
  assert.equal((await other.send('climate', 'ON')).error, 'VTS_ERR_UNKNOWN_VEHICLE');
  // under demo's prefix: the broker closes the connection (MQTT 3.1.1 cannot refuse a publish)
  const intruder = await h.mqtt({ username: 'other', password: 'otherpw' });
  const closed = new Promise<void>((resolve) => intruder.once('close', () => resolve()));
  intruder.publish(`ovms/demo/${id}/vts/set/climate`, 'ON');
  await closed;
  // an API token of demo that may use MQTT but not send commands
  const tok = newApiToken();
  await h.t.server.store.addApiToken({ ownerId: h.ownerId, tokenHash: hashApiToken(tok), application: 'ha', purpose: 'mqtt', permit: 'mqtt', created: 0, lastUsed: null });
  const limited = await results(h, h.user, tok, id);
  const refused = await limited.send('climate', 'ON');
  assert.equal(refused.error, 'VTS_ERR_FORBIDDEN', JSON.stringify(refused));
  const audit = await h.t.server.store.listCommandAudit(id, 10);
  assert.deepEqual(audit.filter((e) => e.via === 'mqtt'), [], 'nothing ran');
});

test('the superuser may command any vehicle, but not with a token that lacks the command right', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST, { mqttSuperuser: 'root' });
  const id = await h.vehicle();
  await mpCar(h, id);
  const rootId = await h.t.addUser('root', 'rootpw');
  const root = await results(h, 'root', 'rootpw', id, h.user);
  const ok = await root.send('wakeup', 'PRESS');
  assert.equal(ok.result, 0, JSON.stringify(ok));
  const tok = newApiToken();
  await h.t.server.store.addApiToken({ ownerId: rootId, tokenHash: hashApiToken(tok), application: 'monitor', purpose: 'mqtt', permit: 'mqtt', created: 0, lastUsed: null });
  const reader = await results(h, 'root', tok, id, h.user);
  assert.equal((await reader.send('climate', 'ON')).error, 'VTS_ERR_FORBIDDEN');
  const audit = await h.t.server.store.listCommandAudit(id, 10);
  assert.deepEqual(audit.filter((e) => e.via === 'mqtt').map((e) => [e.caller, e.command]), [['user:root', '18']]);
});
