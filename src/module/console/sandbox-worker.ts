/**
 * The code that runs in the worker of the module's JavaScript engine (script-sandbox.ts), as text
 * the worker is started with: the API as the script's context sees it, and the worker's loop that
 * evaluates on request and asks the console for what the API needs.
 */

/**
 * The API as seen from inside the context. Evaluated once per context; receives the bridge
 * function and defines the globals and the runner `__ovms_run`.
 */
export const BOOTSTRAP = String.raw`(function (bridge) {
  'use strict';
  var G = globalThis;
  var geval = G.eval;
  var parse = JSON.parse;
  var stringify = JSON.stringify;
  var keys = Object.keys;
  var isArray = Array.isArray;

  function call(op, a, b, c) {
    var r;
    try { r = bridge(op, a, b, c); } catch (e) { throw new Error('internal error in ' + op); }
    if (typeof r !== 'string' || r === '') return undefined;
    return parse(r);
  }
  function hidden(obj, name, value) {
    Object.defineProperty(obj, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  function out(x) {
    if (call('print', String(x)) === false) throw new RangeError('script output limit exceeded');
  }
  function optString(x) { return x === undefined || x === null ? undefined : String(x); }

  hidden(G, 'print', function print(x) { out(x); });
  hidden(G, 'write', function write(x) { out(x); });
  hidden(G, 'assert', function assert(cond, msg) { if (!cond) throw new Error('assertion failed: ' + msg); });

  // The firmware's JSON module: readable (2-space indentation, line end at the top level) or,
  // with a second argument false, compact.
  function format(obj, ind) {
    var sp = ind !== false;
    var pad = typeof ind === 'string' ? ind : '';
    var type = obj === null ? 'null' : isArray(obj) ? 'array' : typeof obj;
    var res = '';
    var i;
    if (type === 'string') res = '"' + obj.replace(/"/g, '\\"') + '"';
    else if (type === 'array') {
      res = sp ? '[\n' : '[';
      for (i = 0; i < obj.length; i++) {
        res += (sp ? pad + '  ' : '') + format(obj[i], sp ? pad + '  ' : false) + (i < obj.length - 1 ? ',' : '') + (sp ? '\n' : '');
      }
      res += pad + ']';
    } else if (type === 'object') {
      var k = keys(obj);
      res = sp ? '{\n' : '{';
      for (i = 0; i < k.length; i++) {
        res += (sp ? pad + '  "' + k[i] + '": ' : '"' + k[i] + '":') + format(obj[k[i]], sp ? pad + '  ' : false) +
          (i < k.length - 1 ? ',' : '') + (sp ? '\n' : '');
      }
      res += pad + '}';
    } else res = '' + obj;
    if (sp && pad === '') res += '\n';
    return res;
  }
  hidden(JSON, 'format', function (obj, ind) { return format(obj, ind); });
  hidden(JSON, 'print', function (obj, ind) { out(format(obj, ind)); });

  var metrics = {};
  hidden(metrics, 'Value', function Value(name, a, b) {
    var unit, decode = true;
    if (typeof a === 'boolean') decode = a;
    else { unit = optString(a); if (b !== undefined) decode = !!b; }
    return call('metrics.value', String(name), unit, decode);
  });
  hidden(metrics, 'AsFloat', function AsFloat(name, unit) { return call('metrics.float', String(name), optString(unit)); });
  hidden(metrics, 'HasValue', function HasValue(name) { return call('metrics.has', String(name)); });
  hidden(metrics, 'IsStale', function IsStale(name) { return call('metrics.stale', String(name)); });
  hidden(metrics, 'Age', function Age(name) { return call('metrics.age', String(name)); });
  hidden(metrics, 'GetValues', function GetValues(filter, decode) {
    var f = filter === undefined || filter === null ? undefined :
      typeof filter === 'object' ? stringify(isArray(filter) ? filter.map(String) : keys(filter)) : stringify(String(filter));
    return call('metrics.values', f, decode === undefined ? true : !!decode);
  });
  hidden(G, 'OvmsMetrics', metrics);

  var command = {};
  hidden(command, 'Exec', function Exec(line) { return call('command.exec', String(line)); });
  hidden(G, 'OvmsCommand', command);

  var events = {};
  hidden(events, 'Raise', function Raise(name, delay) { call('events.raise', String(name), delay === undefined ? 0 : Number(delay)); });
  hidden(G, 'OvmsEvents', events);

  var notify = {};
  hidden(notify, 'Raise', function Raise(type, subtype, text) { return call('notify.raise', String(type), String(subtype), String(text)); });
  hidden(G, 'OvmsNotify', notify);

  var config = {};
  hidden(config, 'Params', function Params() { return call('config.params'); });
  hidden(config, 'Instances', function Instances(p) { return call('config.instances', String(p)); });
  hidden(config, 'Get', function Get(p, i, d) { return call('config.get', String(p), String(i), optString(d)); });
  hidden(config, 'Set', function Set(p, i, v) { call('config.set', String(p), String(i), String(v)); });
  hidden(config, 'Delete', function Delete(p, i) { call('config.delete', String(p), String(i)); });
  hidden(G, 'OvmsConfig', config);

  var vehicle = {};
  function action(name, jsName) {
    hidden(vehicle, jsName, function (a, b) { return call('vehicle.' + name, optString(a), optString(b)); });
  }
  action('type', 'Type');
  action('wakeup', 'Wakeup');
  action('startCharge', 'StartCharge');
  action('stopCharge', 'StopCharge');
  action('startCooldown', 'StartCooldown');
  action('setChargeMode', 'SetChargeMode');
  action('setChargeCurrent', 'SetChargeCurrent');
  action('lock', 'Lock');
  action('unlock', 'Unlock');
  action('valet', 'Valet');
  action('unvalet', 'Unvalet');
  action('homelink', 'Homelink');
  hidden(vehicle, 'ClimateControl', function ClimateControl(on) { return call('vehicle.climate', !!on); });
  hidden(G, 'OvmsVehicle', vehicle);

  var duktape = {};
  hidden(duktape, 'version', 20500);
  hidden(duktape, 'enc', function enc(kind, v) { return kind === 'jx' || kind === 'jc' ? stringify(v) : String(v); });
  hidden(duktape, 'dec', function dec(kind, s) { return kind === 'jx' || kind === 'jc' ? parse(s) : s; });
  hidden(G, 'Duktape', duktape);

  function describe(e) {
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function') && typeof e.message === 'string') {
        var text = String(e.name || 'Error') + (e.message !== '' ? ': ' + e.message : '');
        var m = /<anonymous>:(\d+):\d+\)/.exec(String(e.stack));
        return 'ERROR: ' + text + (m ? ' (line ' + m[1] + ')' : '') + '\n';
      }
      return 'ERROR: ' + String(e) + '\n';
    } catch (_) {
      return 'ERROR: (unprintable error)\n';
    }
  }

  Object.defineProperty(G, '__ovms_run', {
    value: function () {
      var src = call('code');
      try { geval(src); return ''; } catch (e) { return describe(e); }
    },
    writable: false, enumerable: false, configurable: false,
  });
})`;

/**
 * The worker: one vm context with the API, evaluations on request. Messages to the console:
 * `begin`, `print` (output as it is printed), `call` (answered through the shared buffer:
 * Int32 0 = number of the call answered, Int32 1 = the answer's byte length, then the bytes),
 * `done`.
 */
export const WORKER = String.raw`'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const vm = require('node:vm');
const flag = new Int32Array(workerData.shared, 0, 2);
const bytes = new Uint8Array(workerData.shared, 8);
const decoder = new TextDecoder();
let current = null;

// Promise callbacks of a script that fail must not end the worker.
process.on('unhandledRejection', () => {});

let calls = 0;

// Waits for the answer to this call: the console stores its number in flag[0] when ready (an
// answer to a call abandoned by a timeout is never taken for a later one's).
function ask(op, args) {
  const seq = ++calls;
  parentPort.postMessage({ type: 'call', seq, op, args });
  for (;;) {
    const v = Atomics.load(flag, 0);
    if (v === seq) break;
    Atomics.wait(flag, 0, v);
  }
  return decoder.decode(bytes.slice(0, Atomics.load(flag, 1)));
}

function bridge(op, a, b, c) {
  try {
    if (current === null || typeof op !== 'string') return '';
    if (op === 'code') return JSON.stringify(current.code);
    if (op === 'print') {
      const text = typeof a === 'string' ? a : '';
      const room = current.limit - current.written;
      const part = text.length > room ? text.slice(0, Math.max(0, room)) : text;
      current.written += part.length;
      if (part !== '') parentPort.postMessage({ type: 'print', id: current.id, text: part });
      return part.length < text.length ? 'false' : 'true';
    }
    const prim = (x) => (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? x : undefined);
    return ask(op, [prim(a), prim(b), prim(c)]);
  } catch (e) {
    return '';
  }
}

const context = vm.createContext(Object.create(null), { name: 'ovms-duktape', codeGeneration: { strings: true, wasm: false } });
vm.runInContext(workerData.bootstrap, context, { filename: 'ovms-api' })(bridge);
const runner = new vm.Script('__ovms_run()', { filename: 'ovms-runner' });

parentPort.on('message', (msg) => {
  current = { id: msg.id, code: msg.code, limit: msg.outputLimit, written: 0 };
  parentPort.postMessage({ type: 'begin', id: msg.id });
  let error = '';
  try {
    const r = runner.runInContext(context, { timeout: msg.timeoutMs });
    if (typeof r === 'string') error = r;
  } catch (e) {
    const code = e !== null && typeof e === 'object' ? e.code : undefined;
    error = code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
      ? 'ERROR: Error: script execution timed out after ' + msg.timeoutMs + ' ms\n'
      : 'ERROR: Error: script failed\n';
  }
  // Promise callbacks of the script run before the answer (the console's watchdog ends them).
  setImmediate(() => {
    current = null;
    parentPort.postMessage({ type: 'done', id: msg.id, error });
  });
});
`;

/** The messages of the worker to the console. */
export type FromWorker =
  | { type: 'begin'; id: number }
  | { type: 'print'; id: number; text: string }
  | { type: 'call'; seq: number; op: string; args: (string | number | boolean | undefined)[] }
  | { type: 'done'; id: number; error: string };
