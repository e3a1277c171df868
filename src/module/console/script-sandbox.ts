/**
 * The module's JavaScript engine (`script eval`, module HTTP `type=js`; command-execution.md §2.4,
 * module-console.md §9), standing in for the firmware's Duktape: a `node:vm` context inside a
 * worker thread of its own (created on the first evaluation, one per console).
 *
 * - The context lives as long as the worker, so globals persist from one evaluation to the next
 *   as in Duktape. Code runs as non-strict global code (an indirect eval). Evaluations run one at
 *   a time, in the order they were asked for.
 * - Only what the code prints is output (`print(x)` and `write(x)` print `String(x)` without a
 *   line end, as the firmware does); the value of the last expression is discarded. An error
 *   ends the output with `ERROR: <ErrorType>: <message>` (plus ` (line N)` when known) and LF.
 * - Time limit: the vm `timeout` ends a synchronous endless loop (the context survives); anything
 *   that keeps the worker busy longer (an endless loop in a promise callback, which the vm
 *   timeout does not cover) is ended by terminating the worker, which loses the globals. Both
 *   answer `ERROR: Error: script execution timed out after <ms> ms`. (The vm option
 *   `microtaskMode: 'afterEvaluate'` would cover promise callbacks in-thread, but a timeout inside
 *   one aborts the whole process when async hooks are active, nodejs/node#38503.)
 * - Memory: the worker's heap is limited (`resourceLimits`); a script that exhausts it ends with
 *   `ERROR: RangeError: out of memory` and a fresh engine. Output is capped (default 64 KiB): a
 *   print beyond the cap throws a RangeError in the script.
 * - No Node: the context has the ECMAScript built-ins only (no `require`, `process`, timers). The
 *   API objects are defined inside the context and reach the worker through one function held in
 *   a closure that takes and returns only primitive values (JSON text), so no outside object, and
 *   with it an outside `Function`, is reachable. The worker asks the console for metrics, commands
 *   etc. synchronously (it blocks on a shared buffer while the console answers), so API calls
 *   return at once as in Duktape. This keeps honest scripts away from Node; it is not a security
 *   boundary against hostile code (node:vm is not one).
 */
import { Worker } from 'node:worker_threads';

/**
 * Host side of the API: an operation with primitive arguments, a JSON-able result (or a promise
 * of one: the script waits, as for `OvmsCommand.Exec('sleep 1')`).
 */
export type ScriptHostCall = (op: string, args: readonly (string | number | boolean | undefined)[]) => unknown;

export interface SandboxOptions {
  /** Time limit of one evaluation (ms). */
  timeoutMs: number;
  /** Most characters one evaluation may print. */
  outputLimit: number;
  /** Heap limit of the engine (MB). */
  memoryMb: number;
}

/** Room for one answer of the console to the worker (JSON text, UTF-8). */
const ANSWER_BYTES = 1 << 20;
/** Time the worker gets beyond the limit before it is terminated (the vm timeout comes first). */
const WATCHDOG_GRACE_MS = 1000;

/**
 * The API as seen from inside the context. Evaluated once per context; receives the bridge
 * function and defines the globals and the runner `__ovms_run`.
 */
const BOOTSTRAP = String.raw`(function (bridge) {
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
const WORKER = String.raw`'use strict';
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

type FromWorker =
  | { type: 'begin'; id: number }
  | { type: 'print'; id: number; text: string }
  | { type: 'call'; seq: number; op: string; args: (string | number | boolean | undefined)[] }
  | { type: 'done'; id: number; error: string };

/** A worker with the buffer it waits on for answers. */
interface Engine {
  worker: Worker;
  flag: Int32Array;
  answer: Uint8Array;
  /** Number of the call the worker waits for (the latest it made). */
  call: number;
}

interface Running {
  id: number;
  output: string;
  finish: (error: string) => void;
  watchdog: NodeJS.Timeout | undefined;
}

export class ScriptSandbox {
  private engine: Engine | undefined;
  private running: Running | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly host: ScriptHostCall,
    private readonly options: SandboxOptions,
  ) {}

  /**
   * Runs code after the evaluations asked for before; resolves with what it printed, then the
   * error line if it failed. Answers at once (a string) after close(). (An evaluation asked for
   * by the running script itself would wait for ever: the caller must not.)
   */
  eval(code: string): Promise<string> | string {
    if (this.closed) return 'ERROR: Duktape not started\n';
    const result = this.queue.then(() => this.run(code));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the engine; a running evaluation answers with what it printed so far. */
  close(): void {
    this.closed = true;
    this.stop('');
  }

  private run(code: string): Promise<string> {
    if (this.closed) return Promise.resolve('ERROR: Duktape not started\n');
    const { worker } = this.start();
    const id = this.nextId++;
    return new Promise<string>((resolve) => {
      const running: Running = {
        id,
        output: '',
        watchdog: undefined,
        finish: (error) => {
          if (running.watchdog) clearTimeout(running.watchdog);
          if (this.running === running) this.running = undefined;
          this.engine?.worker.unref();
          resolve(running.output + error);
        },
      };
      this.running = running;
      worker.ref();
      worker.postMessage({ id, code, timeoutMs: this.options.timeoutMs, outputLimit: this.options.outputLimit });
    });
  }

  private start(): Engine {
    if (this.engine) return this.engine;
    const shared = new SharedArrayBuffer(8 + ANSWER_BYTES);
    const worker = new Worker(WORKER, {
      eval: true,
      execArgv: [],
      workerData: { shared, bootstrap: BOOTSTRAP },
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb, maxYoungGenerationSizeMb: Math.max(1, this.options.memoryMb >> 3) },
    });
    const engine: Engine = { worker, flag: new Int32Array(shared, 0, 2), answer: new Uint8Array(shared, 8), call: 0 };
    worker.unref();
    worker.on('message', (msg: FromWorker) => this.receive(engine, msg));
    worker.on('error', (e: Error & { code?: string }) => {
      if (this.engine !== engine) return;
      this.stop(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'ERROR: RangeError: out of memory\n' : 'ERROR: Error: script engine failed\n');
    });
    worker.on('exit', () => {
      if (this.engine === engine) this.stop('ERROR: Error: script engine failed\n');
    });
    this.engine = engine;
    return engine;
  }

  /** Terminates the worker; the running evaluation (if any) ends with `error`. */
  private stop(error: string): void {
    const engine = this.engine;
    this.engine = undefined;
    if (engine) void engine.worker.terminate();
    this.running?.finish(error);
  }

  private receive(engine: Engine, msg: FromWorker): void {
    if (engine !== this.engine) return;
    const running = this.running;
    switch (msg.type) {
      case 'call':
        engine.call = msg.seq;
        this.respond(engine, msg.seq, msg.op, msg.args);
        return;
      case 'begin':
        if (running?.id === msg.id) {
          running.watchdog = setTimeout(
            () => this.stop(`ERROR: Error: script execution timed out after ${this.options.timeoutMs} ms\n`),
            this.options.timeoutMs + WATCHDOG_GRACE_MS,
          );
        }
        return;
      case 'print':
        if (running?.id === msg.id) running.output += msg.text;
        return;
      case 'done':
        if (running?.id === msg.id) running.finish(msg.error);
        return;
    }
  }

  /** Answers a call of the worker (which waits on its shared buffer). Never throws. */
  private respond(engine: Engine, seq: number, op: string, args: (string | number | boolean | undefined)[]): void {
    let result: unknown;
    try {
      result = this.host(op, args);
    } catch {
      result = undefined;
    }
    if (!(result instanceof Promise)) return this.reply(engine, seq, result);
    result.then(
      (value: unknown) => this.reply(engine, seq, value),
      () => this.reply(engine, seq, undefined),
    );
  }

  /** Passes a result to the worker, unless it no longer waits for it (timeout, new worker). */
  private reply(engine: Engine, seq: number, result: unknown): void {
    if (engine !== this.engine || seq !== engine.call) return;
    let bytes: Buffer;
    try {
      bytes = Buffer.from(result === undefined ? '' : JSON.stringify(result), 'utf8');
    } catch {
      bytes = Buffer.alloc(0);
    }
    if (bytes.length > ANSWER_BYTES) bytes = Buffer.alloc(0); // too big to pass: undefined
    engine.answer.set(bytes);
    Atomics.store(engine.flag, 1, bytes.length);
    Atomics.store(engine.flag, 0, seq);
    Atomics.notify(engine.flag, 0);
  }
}
