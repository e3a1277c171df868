/**
 * Latency across cluster nodes, side by side with the same path on one node:
 *
 * - Delivery: a car on node A sends an S message; an app on A and an app on B both watch the car,
 *   so each message gives a same-node and a cross-node delivery time (car's send → the app's
 *   receipt), and their difference is the added delay of the cross-node path. A car and its app
 *   on a node that is not clustered give the single-node figure.
 * - Command round trip: an MP app's `C7,echo <n>` and `POST /api/command/<id>` (with a session
 *   cookie), from A (same node as the car), from B (cross node) and on the single node; the car
 *   answers `c7,0,<n>` at once. Round trips run one at a time, the variants taking turns, so the
 *   machine's noise falls on all of them alike. A cross-node command crosses Redis twice (B → A
 *   with the command, A → B with the answer), so one Redis pub/sub hop (a PUBLISH from this
 *   process to a subscriber in this process, ioredis as the nodes use it) takes its turn too.
 * The CPU of the machine over the whole measurement tells how quiet it was.
 */
import { Redis } from 'ioredis';
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { cookieLogin, S } from './lib/payloads.js';
import { fmt, percentile } from './lib/stats.js';
import { cpuOfNamed, cpuUsedSince, machineBusySeconds, waitForQuiet } from './lib/proc.js';

export interface LatencyOptions {
  /** Two vehicles: the cluster's car (on A) and the single node's car. */
  vehicles: [string, string];
  carPassword: string;
  user: string;
  password: string;
  /** Samples per variant (after a warm-up of a tenth of them). */
  samples: number;
  /** The cluster's Redis, and a channel of the run's own for the pub/sub hop. */
  redis: { url: string; channel: string };
}

export interface Distribution {
  p50Ms: number;
  p99Ms: number;
  count: number;
}

export interface LatencyResult {
  delivery: { single: Distribution; sameNode: Distribution; crossNode: Distribution; added: Distribution };
  /** By variant: `mp` (an MP app's C) and `http` (POST /api/command), each on the single node, same node, cross node. */
  commands: Record<'mp' | 'http', { single: Distribution; sameNode: Distribution; crossNode: Distribution; failures: number }>;
  redisHop: Distribution;
  /** Shares of one core over the whole measurement: the three nodes, this process, Redis, the rest. */
  cpu: { servers: number; bench: number; redis: number; other: number };
}

function dist(samples: number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), count: sorted.length };
}

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** An app connection that resolves waiters for a message whose data is exactly the one awaited. */
class Watcher {
  private awaited: { code: string; data: string; resolve: (at: number) => void } | null = null;

  private constructor(readonly app: BenchCar) {
    app.onMessage = (code, data) => {
      const w = this.awaited;
      if (w && w.code === code && w.data === data) {
        this.awaited = null;
        w.resolve(now());
      }
    };
  }

  static async open(port: number, vehicleId: string, password: string): Promise<Watcher> {
    return new Watcher(await BenchCar.connect(port, vehicleId, password, 'A'));
  }

  /** Resolves to the time the message arrives (rejects after 10 s). */
  expect(code: string, data: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${code}${data} within 10 s`)), 10_000);
      this.awaited = {
        code,
        data,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }
}

/** A car that answers every command at once with `c<fn>,0,<the command's last word>`. */
async function answeringCar(port: number, vehicleId: string, password: string): Promise<BenchCar> {
  const car = await BenchCar.connect(port, vehicleId, password);
  car.onMessage = (code, data) => {
    if (code !== 'C') return;
    const comma = data.indexOf(',');
    const fn = comma < 0 ? data : data.slice(0, comma);
    car.sendAll([`c${fn},0,${data.slice(data.lastIndexOf(' ') + 1)}`]);
  };
  return car;
}

export async function runClusterLatency(nodes: { single: ServerProcess; a: ServerProcess; b: ServerProcess }, opts: LatencyOptions): Promise<LatencyResult> {
  const [clusterVehicle, singleVehicle] = opts.vehicles;
  const carA = await answeringCar(nodes.a.mpPort, clusterVehicle, opts.carPassword);
  const carS = await answeringCar(nodes.single.mpPort, singleVehicle, opts.carPassword);
  const appA = await Watcher.open(nodes.a.mpPort, clusterVehicle, opts.carPassword);
  const appB = await Watcher.open(nodes.b.mpPort, clusterVehicle, opts.carPassword);
  const appS = await Watcher.open(nodes.single.mpPort, singleVehicle, opts.carPassword);
  const pub = new Redis(opts.redis.url);
  const sub = new Redis(opts.redis.url);
  let hopArrived: ((at: number) => void) | null = null;
  sub.on('message', () => hopArrived?.(now()));
  const servers = [nodes.single, nodes.a, nodes.b];
  try {
    await sub.subscribe(opts.redis.channel);
    await new Promise((r) => setTimeout(r, 500)); // the login replays and Z messages are over
    await waitForQuiet(0.2, 30_000);
    const cpu0 = { servers: servers.reduce((a, s) => a + s.cpuSeconds(), 0), bench: process.cpuUsage(), redis: cpuOfNamed('redis-server'), machine: machineBusySeconds() };
    const started = now();
    const warmUp = Math.max(10, Math.floor(opts.samples / 10));

    // delivery
    const single: number[] = [];
    const same: number[] = [];
    const cross: number[] = [];
    const added: number[] = [];
    for (let i = 0; i < warmUp + opts.samples; i++) {
      const data = `${S.slice(1)},${i}`;
      const atA = appA.expect('S', data);
      const atB = appB.expect('S', data);
      const sentA = now();
      carA.sendAll([`S${data}`]);
      const [a, b] = await Promise.all([atA, atB]);
      const atS = appS.expect('S', data);
      const sentS = now();
      carS.sendAll([`S${data}`]);
      const s = await atS;
      if (i < warmUp) continue;
      same.push(a - sentA);
      cross.push(b - sentA);
      added.push(b - a);
      single.push(s - sentS);
    }

    // command round trips
    const cookies = { single: await cookieLogin(nodes.single.httpPort, opts.user, opts.password), cluster: await cookieLogin(nodes.a.httpPort, opts.user, opts.password) };
    const rtt = { mp: { single: [] as number[], sameNode: [] as number[], crossNode: [] as number[], failures: 0 }, http: { single: [] as number[], sameNode: [] as number[], crossNode: [] as number[], failures: 0 } };
    const hops: number[] = [];
    const where = [
      ['single', nodes.single, appS, singleVehicle, cookies.single],
      ['sameNode', nodes.a, appA, clusterVehicle, cookies.cluster],
      ['crossNode', nodes.b, appB, clusterVehicle, cookies.cluster],
    ] as const;
    let n = 0;
    for (let i = 0; i < warmUp + opts.samples; i++) {
      for (const [key, server, app, vehicle, cookie] of where) {
        n++;
        const t0 = now();
        const answer = app.expect('c', `7,0,${n}`);
        app.app.sendAll([`C7,echo ${n}`]);
        const t1 = await answer;
        if (i >= warmUp) rtt.mp[key].push(t1 - t0);

        n++;
        const t2 = now();
        const res = await fetch(`http://127.0.0.1:${server.httpPort}/api/command/${vehicle}`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ command: `echo ${n}`, timeout: 10 }),
        });
        const body = (await res.json()) as { output?: string };
        const t3 = now();
        if (res.status !== 200 || body.output?.trim() !== String(n)) rtt.http.failures++;
        else if (i >= warmUp) rtt.http[key].push(t3 - t2);
      }
      const arrived = new Promise<number>((resolve) => (hopArrived = resolve));
      const t4 = now();
      await pub.publish(opts.redis.channel, String(i));
      const t5 = await arrived;
      if (i >= warmUp) hops.push(t5 - t4);
    }
    const seconds = (now() - started) / 1000;
    const bench = process.cpuUsage(cpu0.bench);
    const used = {
      servers: servers.reduce((a, s) => a + s.cpuSeconds(), 0) - cpu0.servers,
      bench: (bench.user + bench.system) / 1e6,
      redis: cpuUsedSince(cpu0.redis, cpuOfNamed('redis-server')),
    };
    const other = Math.max(0, machineBusySeconds() - cpu0.machine - used.servers - used.bench - used.redis);
    const commandsOf = (r: (typeof rtt)['mp']) => ({ single: dist(r.single), sameNode: dist(r.sameNode), crossNode: dist(r.crossNode), failures: r.failures });
    return {
      delivery: { single: dist(single), sameNode: dist(same), crossNode: dist(cross), added: dist(added) },
      commands: { mp: commandsOf(rtt.mp), http: commandsOf(rtt.http) },
      redisHop: dist(hops),
      cpu: { servers: used.servers / seconds, bench: used.bench / seconds, redis: used.redis / seconds, other: other / seconds },
    };
  } finally {
    for (const c of [carA, carS, appA.app, appB.app, appS.app]) c.close();
    pub.disconnect();
    sub.disconnect();
  }
}

const ms = (d: Distribution): string => `p50 ${fmt(d.p50Ms, 2)} ms, p99 ${fmt(d.p99Ms, 2)} ms`;

export function reportClusterLatency(r: LatencyResult, p99Target: number): string[] {
  const d = r.delivery;
  const lines = [
    `  Delivery, car's S → an app (${fmt(d.sameNode.count)} messages each; apps on A and B watch the same car on A):`,
    `    one node (not clustered): ${ms(d.single)}`,
    `    same node (car and app on A): ${ms(d.sameNode)}`,
    `    cross node (car on A, app on B): ${ms(d.crossNode)}`,
    `    added delay of the cross-node path (B's receipt − A's, per message): ${ms(d.added)}`,
    `  Command round trip, the car on A answering at once (${fmt(r.commands.mp.sameNode.count)} each, variants taking turns):`,
  ];
  for (const [label, c] of [['MP app C7', r.commands.mp], ['HTTP POST /api/command', r.commands.http]] as const) {
    const overheadP99 = c.crossNode.p99Ms - c.sameNode.p99Ms;
    lines.push(
      `    ${label}: one node ${ms(c.single)}; same node ${ms(c.sameNode)}; cross node ${ms(c.crossNode)}` + (c.failures ? `; ${c.failures} failed` : ''),
      `      cross-node overhead: p50 ${fmt(c.crossNode.p50Ms - c.sameNode.p50Ms, 2)} ms, p99 ${fmt(overheadP99, 2)} ms ` +
        `(vs one node: p50 ${fmt(c.crossNode.p50Ms - c.single.p50Ms, 2)} ms, p99 ${fmt(c.crossNode.p99Ms - c.single.p99Ms, 2)} ms); ` +
        `target p99 < ${p99Target} ms: ${Math.max(overheadP99, c.crossNode.p99Ms - c.single.p99Ms) < p99Target ? 'met' : 'missed'}`,
    );
  }
  lines.push(
    `    one Redis pub/sub hop (PUBLISH → a subscriber, ioredis; a cross-node command takes two): ${ms(r.redisHop)}`,
    `    CPU over delivery and commands, % of one core: the three nodes ${fmt(r.cpu.servers * 100)}, bench process ${fmt(r.cpu.bench * 100)}, ` +
      `Redis ${fmt(r.cpu.redis * 100)}, other ${fmt(r.cpu.other * 100)}`,
  );
  return lines;
}
