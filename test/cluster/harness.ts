/**
 * A real cluster for the tests: `vts serve` child processes (each a node, on free loopback ports)
 * sharing one PostgreSQL schema and one Redis (a key prefix of their own, so that test files
 * running at once do not meet). The owner `demo` (password `demopass`) and a vehicle are made
 * before the nodes start; everything is stopped and dropped when the test ends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient, type ClientType, type MpMessage } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { listening, serveProcess, type Running } from '../cli/serve-process.js';
import { freshSchema } from '../support/postgres.js';
import { needs, postgres, redis, requireServices } from '../support/services.js';

/** The `skip` option of a cluster test: PostgreSQL and Redis must be there. */
export const skipCluster = await needs(postgres, redis);

export const REDIS_URL = 'redis://127.0.0.1:6379';
export const VEHICLE = 'CLCAR';
export const CARPASS = 'NETPASS';
const TEST_COST = { N: 1024, r: 8, p: 1 };

export interface Node {
  readonly id: string;
  readonly run: Running;
  readonly mp: number;
  readonly http: number;
  readonly mqtt: number;
  /** `http://127.0.0.1:<port><path>`, with the demo user's credentials unless `auth` is false. */
  url(path: string, auth?: boolean): string;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** Whether its log (stderr) has a line whose message is `msg`. */
  logged(msg: string): boolean;
}

export interface Cluster {
  readonly nodes: Node[];
  /** The shared database (for seeding and checks). */
  readonly store: Store;
  readonly databaseUrl: string;
  readonly prefix: string;
  readonly ownerId: number;
  /** Starts one more node. */
  start(id: string, extra?: string[]): Promise<Node>;
  /** An MP client logged in at a node (scheme 0 with the car password); closed at the end. */
  mp(node: Node, type: ClientType, vehicleId?: string): Promise<MpClient>;
}

/** Starts `ids.length` nodes of a new cluster. */
export async function startCluster(t: TestContext, ids: string[], opts: { extra?: string[]; redisUrl?: string } = {}): Promise<Cluster> {
  await requireServices(postgres, redis);
  const schema = freshSchema();
  const store = await openStore('', { database: schema.url });
  const clients: MpClient[] = [];
  const nodes: Node[] = [];
  t.after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const n of nodes) if (n.run.child.exitCode === null && n.run.child.signalCode === null) n.run.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.run.exit));
    await store.close();
    await schema.drop();
  });
  const owner = await store.addOwner('demo', await hashPassword('demopass', TEST_COST), '*');
  await store.addVehicle({ id: VEHICLE, ownerId: owner.id, name: 'cluster car', carPassword: CARPASS });
  const prefix = `vtstest${randomBytes(4).toString('hex')}`;
  const c: Cluster = {
    nodes,
    store,
    databaseUrl: schema.url,
    prefix,
    ownerId: owner.id,
    async start(id, extra = []) {
      const run = serveProcess([
        // the tests poll every node's API: no rate limit unless a test sets one (a later flag wins)
        ...['--mp-port', '0', '--http-port', '0', '--mqtt-port', '0', '--log-level', 'info', '--rate-limit-burst', '0'],
        ...['--database', schema.url, '--cluster', opts.redisUrl ?? REDIS_URL, '--cluster-prefix', prefix, '--node-id', id],
        ...(opts.extra ?? []),
        ...extra,
      ]);
      const ports = await listening(run);
      const node: Node = {
        id,
        run,
        mp: ports.mp as number,
        http: ports.http as number,
        mqtt: ports.mqtt as number,
        url: (path, auth = true) => {
          const u = new URL(`http://127.0.0.1:${ports.http as number}${path}`);
          if (auth) {
            u.searchParams.set('username', 'demo');
            u.searchParams.set('password', 'demopass');
          }
          return u.toString();
        },
        async kill() {
          run.child.kill('SIGKILL');
          await run.exit;
        },
        logged: (msg) => run.stderr.some((l) => l.includes(`"msg":${JSON.stringify(msg)}`)),
      };
      nodes.push(node);
      return node;
    },
    async mp(node, type, vehicleId = VEHICLE) {
      const client = await MpClient.connect({ host: '127.0.0.1', port: node.mp, clientType: type, vehicleId, scheme: 0, password: CARPASS });
      clients.push(client);
      return client;
    },
  };
  for (const id of ids) await c.start(id);
  return c;
}

/** Reads messages up to and including the first one with `code` (the MP tests' own). */
export { readUntil } from '../mp/helpers.js';

/** The next message with `code` (others are skipped). */
export async function nextOf(c: MpClient, code: string): Promise<MpMessage> {
  for (;;) {
    const msg = await c.next();
    if (msg.code === code) return msg;
  }
}

/** `GET /api/vehicles` of a node: the demo vehicle's counts. */
export async function counts(node: Node): Promise<{ apps: number; batches: number; net: number }> {
  const res = await fetch(node.url('/api/vehicles'));
  assert.equal(res.status, 200);
  const rows = (await res.json()) as { id: string; v_apps_connected: number; v_btcs_connected: number; v_net_connected: number }[];
  const row = rows.find((r) => r.id === VEHICLE);
  assert.ok(row, JSON.stringify(rows));
  return { apps: row.v_apps_connected, batches: row.v_btcs_connected, net: row.v_net_connected };
}

/** Polls until every node reports these counts (the nodes learn of each other within milliseconds). */
export async function countsEverywhere(cluster: Cluster, expected: { apps: number; batches: number; net: number }, nodes = cluster.nodes, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const seen = await Promise.all(nodes.map((n) => counts(n)));
    if (seen.every((s) => s.apps === expected.apps && s.batches === expected.batches && s.net === expected.net)) return;
    last = seen;
    if (Date.now() > deadline) assert.fail(`counts ${JSON.stringify(last)} on ${nodes.map((n) => n.id).join(', ')}, expected ${JSON.stringify(expected)} everywhere`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Plays a car that answers its commands, in the background: `C7,<text>` with `c7,0,ran <text>`,
 * any other `C<fn>[,…]` with `c<fn>,0`. Returns every message the car receives, in order (nothing
 * else may read the car's messages meanwhile); it stops when the connection closes.
 */
export function answerCommands(car: MpClient): MpMessage[] {
  const seen: MpMessage[] = [];
  void (async () => {
    try {
      for await (const msg of car) {
        seen.push(msg);
        if (msg.code !== 'C') continue;
        const [fn = '', ...rest] = msg.data.split(',');
        car.send('c', fn === '7' ? `7,0,ran ${rest.join(',')}` : `${fn},0`);
      }
    } catch {
      // closed while answering: the test looks at what the car saw
    }
  })();
  return seen;
}
