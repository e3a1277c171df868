/**
 * The module's JavaScript engine (`script eval`, module HTTP `type=js`; docs/protocol/commands.md §2.4,
 * docs/protocol/module-console.md §9), standing in for the firmware's Duktape: a `node:vm` context inside a
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
import { BOOTSTRAP, WORKER, type FromWorker } from './sandbox-worker.js';

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
