/**
 * Shared set-up for the MP routing tests (test/mp/*.test.ts): a real server per test with one
 * owner and vehicle, clients that are closed automatically, and a round trip (`A` → `a`) that
 * serves as a barrier: every message the server produced for a connection before it handled the
 * ping arrives before the `a`.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { MpClient, type ClientType, type MpMessage } from '../../src/mp-client/mp-client.js';
import type { ServerConfig } from '../../src/server/server.js';
import { startTestServer, type TestServer } from '../support/server.js';

export type { MpMessage };

/** Shorthand for an expected message. */
export const m = (code: string, data = ''): MpMessage => ({ code, data });

export interface ConnectOptions {
  vehicleId?: string;
  password?: string;
}

export interface Harness {
  t: TestServer;
  /** Owner `demo` (password `demopass`) of vehicle TESTCAR (car password NETPASS). */
  ownerId: number;
  /** Logs in a scheme-0 client; it is closed when the test ends. */
  connect(type: ClientType, opts?: ConnectOptions): Promise<MpClient>;
  /**
   * Logs in an app or batch client and reads its after-login messages up to and including
   * `T<secs>` (docs/protocol/mp.md §8.1).
   */
  client(type: 'A' | 'B', opts?: ConnectOptions): Promise<{ c: MpClient; initial: MpMessage[] }>;
  /** Logs in a car and reads its `Z<n>`. */
  car(opts?: ConnectOptions): Promise<{ c: MpClient; initial: MpMessage[] }>;
  /** Closes every client, then the server (idempotent). */
  close(): Promise<void>;
}

/** Starts a server for one test; everything is closed when the test ends (pass or fail). */
export async function harness(ctx: TestContext, config: Partial<ServerConfig> = {}): Promise<Harness> {
  const t = await startTestServer(config);
  const clients: MpClient[] = [];
  let closing: Promise<void> | undefined;
  const ownerId = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', ownerId, 'NETPASS');
  const h: Harness = {
    t,
    ownerId,
    async connect(type, opts = {}) {
      const c = await MpClient.connect({
        host: '127.0.0.1',
        port: t.mpPort,
        clientType: type,
        vehicleId: opts.vehicleId ?? 'TESTCAR',
        scheme: 0,
        password: opts.password ?? 'NETPASS',
      });
      clients.push(c);
      return c;
    },
    async client(type, opts) {
      const c = await h.connect(type, opts);
      return { c, initial: await readUntil(c, 'T') };
    },
    async car(opts) {
      const c = await h.connect('C', opts);
      return { c, initial: [await c.next()] };
    },
    close() {
      closing ??= (async () => {
        await Promise.all(clients.map((c) => c.close()));
        await t.close();
      })();
      return closing;
    },
  };
  ctx.after(() => h.close());
  return h;
}

/** Reads messages up to and including the first one with `code`. */
export async function readUntil(c: MpClient, code: string): Promise<MpMessage[]> {
  const out: MpMessage[] = [];
  for (;;) {
    const msg = await c.next();
    out.push(msg);
    if (msg.code === code) return out;
  }
}

/**
 * Sends a ping `A` and returns everything received before its `a`. Since the server handles a
 * connection's lines in order and writes to each connection in order, this returns every message
 * that the server had produced for this connection before it handled the ping.
 */
export async function roundTrip(c: MpClient): Promise<MpMessage[]> {
  c.send('A');
  const out: MpMessage[] = [];
  for (;;) {
    const msg = await c.next();
    if (msg.code === 'a' && msg.data === '') return out;
    out.push(msg);
  }
}

/** Polls `probe` (an async query, not a sleep as an assertion) until it returns a defined value. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Asserts a `T<secs>` message with a small age (the car sent moments ago). */
export function assertRecentT(msg: MpMessage | undefined): void {
  assert.equal(msg?.code, 'T', `expected T<secs>, got ${JSON.stringify(msg)}`);
  assert.match(msg.data, /^\d+$/);
  assert.ok(Number(msg.data) < 60, `T${msg.data} should be the age of a message sent moments ago`);
}
