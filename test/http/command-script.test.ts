/**
 * JavaScript through the server's command API (`type: "js"`) reaches the module's console as the
 * script itself, whatever it holds (quotes of both kinds, backslashes, semicolons, non-ASCII, line
 * breaks and comments), on a vehicle of the v2 link and on one of MQTT (the embedded broker). The
 * quoting itself is tested in test/core/script-eval.test.ts; `vts exec` in test/cli/exec.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startV2Module } from '../support/module.js';
import { eventually } from '../mp/helpers.js';
import { mqttHarness, type MqttHarness } from '../mqtt/harness.js';


const SCRIPTS: [string, string | RegExp][] = [
  ['print(OvmsMetrics.Value("v.b.soc"))', /^\d+(\.\d+)?$/],
  ["print('single')", 'single'],
  ['print("a \\"b\\" \'c\'"); print(";")', `a "b" 'c';`],
  ['var s = "back\\\\slash; \\\\\\""; print(s)', 'back\\slash; \\"'],
  ['print("Grüße: 温度 ✓")', 'Grüße: 温度 ✓'],
  ['// a comment\nvar n = 20; // another\nprint(n + 22)', '42'],
  ['print("tab:\\t.")', 'tab:\t.'],
];

async function run(h: MqttHarness, id: string, command: string): Promise<{ status: number; body: { output?: string; result?: number } }> {
  const r = await h.asUser(`/api/command/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command, type: 'js' }),
  });
  return { status: r.status, body: JSON.parse(r.body) as { output?: string; result?: number } };
}

async function checkAll(h: MqttHarness, id: string, link: string): Promise<void> {
  for (const [script, want] of SCRIPTS) {
    const r = await run(h, id, script);
    assert.equal(r.status, 200, `${link}: ${script}`);
    assert.equal(r.body.result, 0, `${link}: ${script}`);
    if (typeof want === 'string') assert.equal(r.body.output, want, `${link}: ${script}`);
    else assert.match(r.body.output ?? '', want, `${link}: ${script}`);
  }
  const long = await run(h, id, `print("${'x'.repeat(900)}")`);
  assert.equal(long.status, 400, `${link}: a script longer than a console line`);
}

test('JavaScript through the command API runs unchanged on a v2 vehicle and on an MQTT vehicle', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const v3 = await h.vehicle();
  await h.module(v3);
  const v2 = await h.vehicle();
  await startV2Module(t, h.t, { id: v2, carPassword: 'NETPASS', seed: 5 });
  await eventually(() => (h.t.server.hub.counts(v3).net === 1 ? true : undefined), 'the v3 module connected', 10_000);
  await checkAll(h, v2, 'v2');
  await checkAll(h, v3, 'mqtt');
});
