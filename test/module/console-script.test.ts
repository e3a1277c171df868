/**
 * JavaScript (`script eval`, evalScript; docs/protocol/module-console.md §9, docs/protocol/commands.md §2.4): only
 * printed text is output, JSON.print's format, the OvmsMetrics / OvmsCommand / OvmsEvents /
 * OvmsVehicle / OvmsConfig API, globals that persist between evaluations, the error line, the
 * time limit, the output cap, and no way to Node's require or process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('print writes String(x) without a line end; the last value is not output', async () => {
  const { run, console } = setup();
  assert.equal(await run(`script eval "print(OvmsMetrics.Value('v.b.soc'))"`), '50');
  assert.equal(await run(`script eval "print('a'); print(1+1); 42"`), 'a2');
  assert.equal(await console.evalScript('print("x\\n"); write("y")'), 'x\ny');
  assert.equal(await run('script eval 1+1'), '');
});

test('evalScript takes code with line breaks and spaces as is (HTTP type=js)', async () => {
  const { console } = setup();
  assert.equal(await console.evalScript('var a = 1;\nvar b = 2;\nprint(a + b)'), '3');
});

test('JSON.print: 2-space indentation and a final line end; compact with false', async () => {
  const { console } = setup();
  assert.equal(
    await console.evalScript('JSON.print({ soc: 50, list: [1, "two"], ok: true, none: null })'),
    '{\n  "soc": 50,\n  "list": [\n    1,\n    "two"\n  ],\n  "ok": true,\n  "none": null\n}\n',
  );
  assert.equal(await console.evalScript('JSON.print({ a: [1, 2], b: "x" }, false)'), '{"a":[1,2],"b":"x"}');
  assert.equal(await console.evalScript('print(JSON.format([1], false))'), '[1]');
});

test('OvmsMetrics.Value decodes by type; a unit converts; false gives the string form', async () => {
  const { console } = setup();
  const js = (code: string): Promise<string> => console.evalScript(code);
  assert.equal(await js(`print(typeof OvmsMetrics.Value('v.b.soc'))`), 'number');
  assert.equal(await js(`print(OvmsMetrics.Value('v.e.locked') === false)`), 'true');
  assert.equal(await js(`print(OvmsMetrics.Value('v.type'))`), 'DEMO');
  assert.equal(await js(`print(JSON.stringify(OvmsMetrics.Value('v.t.pressure')))`), '[206.843,206.843,275.79,275.79]');
  assert.equal(await js(`print(Math.round(OvmsMetrics.Value('v.p.odometer', 'miles')))`), '62137');
  assert.equal(await js(`print(JSON.stringify(OvmsMetrics.Value('v.e.locked', false)))`), '"no"');
  assert.equal(await js(`print(OvmsMetrics.Value('v.p.odometer', 'miles', false))`), '62137M');
  assert.equal(await js(`print(OvmsMetrics.Value('v.no.such'))`), 'undefined');
});

test('OvmsMetrics.AsFloat and HasValue', async () => {
  const { console } = setup();
  const js = (code: string): Promise<string> => console.evalScript(code);
  assert.equal(await js(`print(OvmsMetrics.AsFloat('v.b.soc') + 1)`), '51');
  assert.equal(await js(`print(OvmsMetrics.AsFloat('v.e.locked'))`), '0');
  assert.equal(await js(`print(OvmsMetrics.AsFloat('v.c.kwh'))`), '0');
  assert.equal(await js(`print([OvmsMetrics.HasValue('v.b.soc'), OvmsMetrics.HasValue('v.c.kwh'), OvmsMetrics.HasValue('v.x')].join())`), 'true,false,');
});

test('OvmsMetrics.GetValues with a substring or a list of names', async () => {
  const { console } = setup();
  assert.equal(await console.evalScript(`JSON.print(OvmsMetrics.GetValues('v.b.s'), false)`), '{"v.b.soc":50,"v.b.soh":100}');
  assert.equal(await console.evalScript(`JSON.print(OvmsMetrics.GetValues(['v.type', 'v.x']), false)`), '{"v.type":"DEMO"}');
});

test('OvmsCommand.Exec returns the output of a command that completes at once', async () => {
  const { console, vehicle } = setup();
  assert.equal(await console.evalScript(`print(OvmsCommand.Exec('metrics get v.b.soc'))`), '50%\n');
  assert.equal(await console.evalScript(`var r = OvmsCommand.Exec('lock 1234'); print(r)`), 'Vehicle locked\n');
  assert.equal(vehicle.metrics.get('v.e.locked'), true);
});

test('OvmsCommand.Exec waits for a command that takes time, as Duktape blocks', async () => {
  const { console, services } = setup();
  const order: string[] = [];
  const script = console
    .evalScript(`var r = OvmsCommand.Exec('sleep 0.1\\necho slept'); OvmsEvents.Raise('after'); print(r)`)
    .then((out) => order.push(`script:${out}`));
  await new Promise((r) => setTimeout(r, 30)).then(() => order.push(`timer:${services.events.join()}`));
  await script;
  assert.deepEqual(order, ['timer:', 'script:slept\n']);
  assert.deepEqual(services.events, ['after']);
});

test('a script waiting in OvmsCommand.Exec beyond its time limit ends; the late answer is dropped', async () => {
  const { console } = setup({ scriptTimeoutMs: 100 });
  assert.match(await console.evalScript(`print('a'); OvmsCommand.Exec('sleep 2'); print('b')`), /^aERROR: Error: script execution timed out after 100 ms\n$/);
  assert.equal(await console.evalScript(`print(OvmsCommand.Exec('echo fresh'))`), 'fresh\n');
});

test('OvmsEvents.Raise, OvmsVehicle actions and OvmsConfig reach the module', async () => {
  const { console, services, vehicle } = setup();
  assert.equal(await console.evalScript(`OvmsEvents.Raise('usr.js'); print(OvmsVehicle.Type())`), 'DEMO');
  assert.deepEqual(services.events, ['usr.js']);
  assert.equal(await console.evalScript(`print(OvmsVehicle.StartCharge())`), 'true');
  assert.equal(vehicle.metrics.get('v.c.charging'), true);
  assert.equal(await console.evalScript(`print(OvmsVehicle.Homelink(0))`), 'false', 'DEMO has no homelink');
  assert.deepEqual(vehicle.calls.at(-1), ['homelink', 1, 1000], 'Duktape counts buttons from 0');
  assert.equal(await console.evalScript(`OvmsConfig.Set('vehicle', 'x', 'y'); print(OvmsConfig.Get('vehicle', 'x'))`), 'y');
  assert.equal(await console.evalScript(`print(OvmsConfig.Get('vehicle', 'missing', 'dflt'))`), 'dflt');
});

test('globals persist from one evaluation to the next', async () => {
  const { run, console } = setup();
  await console.evalScript('var counter = 41; function bump() { return ++counter; }');
  assert.equal(await run('script eval "print(bump())"'), '42');
  assert.equal(await console.evalScript('print(counter)'), '42');
});

test('errors: one line ERROR: <type>: <message>, after what was printed', async () => {
  const { run, console } = setup();
  assert.equal(await run('script eval "foo()"'), 'ERROR: ReferenceError: foo is not defined (line 1)\n');
  assert.equal(await console.evalScript('print("a");\nnull.x'), "aERROR: TypeError: Cannot read properties of null (reading 'x') (line 2)\n");
  assert.match(await console.evalScript('this is not js'), /^ERROR: SyntaxError: .+\n$/);
  assert.equal(await console.evalScript('throw "plain"'), 'ERROR: plain\n');
  assert.equal(await console.evalScript('throw new RangeError("")'), 'ERROR: RangeError (line 1)\n');
});

test('an endless loop ends at the time limit, and the engine keeps working', async () => {
  const { console } = setup({ scriptTimeoutMs: 100 });
  assert.equal(await console.evalScript('print("x"); while (true) {}'), 'xERROR: Error: script execution timed out after 100 ms\n');
  assert.equal(
    await console.evalScript('Promise.resolve().then(function () { for (;;) {} })'),
    'ERROR: Error: script execution timed out after 100 ms\n',
  );
  assert.equal(await console.evalScript('print("alive")'), 'alive');
});

test('a synchronous endless loop keeps the globals; a promise-callback one restarts the engine', async () => {
  const { console } = setup({ scriptTimeoutMs: 100 });
  assert.match(await console.evalScript('var kept = "yes"; for (;;) {}'), /^ERROR: Error: script execution timed out/);
  assert.equal(await console.evalScript('print(kept)'), 'yes');
  assert.match(await console.evalScript('Promise.resolve().then(function () { for (;;) {} })'), /^ERROR: Error: script execution timed out/);
  assert.equal(await console.evalScript('print(typeof kept)'), 'undefined');
});

test('a script that exhausts its heap ends with out of memory, and the engine restarts', async () => {
  const { console } = setup({ scriptMemoryMb: 16, scriptTimeoutMs: 20000 });
  assert.equal(await console.evalScript('var a = []; for (;;) a.push(new Array(100000).fill(1.5));'), 'ERROR: RangeError: out of memory\n');
  assert.equal(await console.evalScript('print("again")'), 'again');
});

test('script eval from inside a script is refused (the engine is busy)', async () => {
  const { console } = setup();
  assert.equal(
    await console.evalScript(`print(OvmsCommand.Exec('script eval "print(1)"'))`),
    'ERROR: Error: script eval is not available from inside a script\n',
  );
});

test('evaluations asked for at the same time run one after the other', async () => {
  const { console } = setup();
  const [a, b] = await Promise.all([
    console.evalScript('var shared = 1; (function () { for (var i = 0; i < 1e5; i++) {} })(); shared = 2; print(shared)'),
    console.evalScript('print(shared)'),
  ]);
  assert.deepEqual([a, b], ['2', '2']);
  // also while the first waits for a command
  const [c, d] = await Promise.all([
    console.evalScript(`shared = 3; OvmsCommand.Exec('sleep 0.05'); shared = 4;`),
    console.evalScript('print(shared)'),
  ]);
  assert.deepEqual([c, d], ['', '4']);
});

test('dispose() ends the engine', async () => {
  const { console } = setup();
  assert.equal(await console.evalScript('print(1)'), '1');
  console.dispose();
  assert.equal(await console.evalScript('print(1)'), 'ERROR: Duktape not started\n');
});

test('output is capped; the print that overflows throws', async () => {
  const { console } = setup({ scriptOutputLimit: 10 });
  assert.equal(await console.evalScript('print("12345678"); print("abcdef"); print("never")'), '12345678abERROR: RangeError: script output limit exceeded (line 1)\n');
});

test('no Node inside: no require, process or timers, and no way out through constructors', async () => {
  const { console } = setup();
  const js = (code: string): Promise<string> => console.evalScript(code);
  assert.equal(await js('print([typeof require, typeof process, typeof setTimeout, typeof module].join())'), 'undefined,undefined,undefined,undefined');
  for (const path of ['this', 'print', 'OvmsMetrics.Value', 'OvmsMetrics', 'JSON.print', 'OvmsCommand.Exec']) {
    assert.equal(await js(`print(${path}.constructor.constructor('return typeof process')())`), 'undefined', path);
  }
  assert.equal(await js(`try { OvmsMetrics.Value({ toString: function () { throw new Error('x'); } }); } catch (e) { print(e.constructor.constructor('return typeof process')()); }`), 'undefined');
});
