/**
 * MQTT bridge (v3 vehicles over MQTT): N emulated v3 vehicles publish metrics to the server's embedded broker;
 * the bridge renders them as v2 records, which `GET /api/status/<id>` reads back.
 *
 * The vehicles are lean `mqtt` clients (not the full emulator), one connection per vehicle as a
 * module makes it: client id = vehicle id, the vts user and password, will
 * `ovms/<user>/<id>/metric/s/v3/connected` = `no` (retained), then `…/s/v3/connected` = `yes` and
 * retained QoS 0 metric publishes (`…/metric/v/b/soc` = `81.3`, odometer, ranges, …).
 *
 * 1. Throughput: for a fixed window every vehicle publishes metrics as fast as its socket takes
 *    them (backpressure: a chunk of 50 publishes, then wait for the socket to drain), cycling
 *    through 12 metrics with changing values, `v.b.soc` kept below 80. When the window closes each
 *    vehicle publishes `v.b.soc` = `99.9` last; the server has processed a vehicle's whole stream
 *    once `/api/status/<id>` shows soc `99.9` (one connection per vehicle, so its publishes reach
 *    the bridge in order). Metric updates per second = every publish of the window (markers
 *    included) / the time from the window's start to the response that showed the last vehicle's
 *    marker. So the backlog the server had queued (socket buffers) when the window closed counts
 *    in the time, and the figure is what the server processed, not what the client sent. The
 *    report also gives the send rate and the drain time after the last publish: a drain well above
 *    the 20 ms render delay (over 250 ms) means the server had a backlog to work off, so it was the
 *    bottleneck; otherwise the load generator (same machine, same cores) was, and the figure is a
 *    lower bound. It also gives the CPU of the server, of the load generator and of every other
 *    process (noise from whatever else runs on the machine) over that time. Every phase ends on
 *    a soc value of its own (the cycle never reaches 80), so no marker is an old value.
 * 2. Latency: one vehicle publishes `v.b.soc` = a new value, then `/api/status/<id>` is polled
 *    (one request at a time, a new one at most every 2 ms) until its `soc` shows the value; the
 *    time from the publish to that response is one sample. It includes the bridge's render delay
 *    (20 ms, by design: a burst of metrics makes one render). Measured with the other vehicles
 *    idle, then while they publish at half the measured throughput (paced; the server is checked
 *    to have processed that load too, by an end marker likewise). Under load a status request
 *    itself takes longer, so the polling is coarser: the report gives the mean poll interval.
 * 3. The server's peak RSS (VmHWM of the server process, which serves only this benchmark).
 */
import { connectAsync, type MqttClient } from 'mqtt';
import type { ServerProcess } from './lib/server-process.js';
import { machineBusySeconds } from './lib/proc.js';
import { fmt, mib, percentile } from './lib/stats.js';

export interface MqttBridgeOptions {
  /** Vehicle ids (uppercase, owned by `user`); one MQTT connection each. */
  ids: readonly string[];
  user: string;
  password: string;
  /** Length of the throughput window. */
  seconds: number;
  /** Latency samples per latency run. */
  samples: number;
}

export interface ThroughputResult {
  vehicles: number;
  /** Metric publishes of the window, end markers included. */
  published: number;
  /** From the window's start to the last publish written to its socket. */
  sendSeconds: number;
  /** From the window's start to the response showing the last vehicle's end marker. */
  processedSeconds: number;
  /** From the last publish written to the last marker seen. */
  drainMs: number;
  /** published / processedSeconds: what the server processed. */
  processedPerSecond: number;
  /** published / sendSeconds: what the load generator sent. */
  sentPerSecond: number;
  /** Server process CPU over processedSeconds (1 = one core). */
  serverCpu: number;
  /** This (load generator) process's CPU over processedSeconds. */
  clientCpu: number;
  /** The rest of the machine's busy CPU over processedSeconds (other processes: noise). */
  otherCpu: number;
  /** Status requests made while waiting for the markers. */
  markerPolls: number;
}

export interface LatencyResult {
  label: string;
  samples: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Mean time between consecutive status requests of a sample (the polling granularity). */
  pollIntervalMs: number;
  /** Background metric updates per second the other vehicles published meanwhile (0 = idle). */
  backgroundPerSecond: number;
  /** For a loaded run: the background's end markers were all seen (the server kept up). */
  backgroundDrainMs?: number;
}

export interface MqttBridgeResult {
  throughput: ThroughputResult;
  latency: LatencyResult[];
  /** Server RSS once every vehicle is connected and online, before the load. */
  connectedRssBytes: number;
  /** VmHWM of the server process at the end. */
  peakRssBytes: number;
}

/** soc values the metric cycle never takes, one per phase, so a phase's marker is news. */
const WARM_SOC = '85.0';
const WARM_END_SOC = '99.7';
const END_SOC = '99.9';
const BACKGROUND_END_SOC = '99.8';
const CHUNK = 50;
const POLL_MS = 2;
const PUBLISH = { qos: 0, retain: true } as const;

/** The metrics the vehicles cycle through and a value of each for step `i` (soc stays below 80). */
const METRICS: readonly [string, (i: number) => string][] = [
  ['v.b.soc', (i) => (10 + (i % 700) / 10).toFixed(1)],
  ['v.p.odometer', (i) => (12345.6 + i / 10).toFixed(1)],
  ['v.b.range.est', (i) => String(200 + (i % 150))],
  ['v.b.range.ideal', (i) => String(230 + (i % 150))],
  ['v.b.voltage', (i) => (380 + (i % 200) / 10).toFixed(1)],
  ['v.b.current', (i) => ((i % 400) / 10 - 20).toFixed(1)],
  ['v.b.power', (i) => ((i % 300) / 10 - 10).toFixed(2)],
  ['v.b.temp', (i) => (15 + (i % 100) / 10).toFixed(1)],
  ['v.p.speed', (i) => String(i % 130)],
  ['v.p.latitude', (i) => (51.5 + (i % 1000) / 1e5).toFixed(6)],
  ['v.p.longitude', (i) => (-0.1 + (i % 1000) / 1e5).toFixed(6)],
  ['v.e.temp', (i) => (10 + (i % 50) / 10).toFixed(1)],
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A drain longer than this after the last publish means the server had a backlog to work off. */
const BACKLOG_MS = 250;

class BenchVehicle {
  readonly prefix: string;
  private readonly topics: string[];
  private step = 0;

  private constructor(
    readonly id: string,
    readonly client: MqttClient,
    user: string,
  ) {
    this.prefix = `ovms/${user}/${id}/`;
    this.topics = METRICS.map(([name]) => `${this.prefix}metric/${name.replaceAll('.', '/')}`);
  }

  static async connect(port: number, id: string, user: string, password: string): Promise<BenchVehicle> {
    const client = await connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: id,
      username: user,
      password,
      clean: false, // as the module connects
      keepalive: 1740,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
      will: { topic: `ovms/${user}/${id}/metric/s/v3/connected`, payload: Buffer.from('no'), qos: 0, retain: true },
    });
    client.on('error', () => undefined);
    return new BenchVehicle(id, client, user);
  }

  /** Publishes; resolves once the packet is in the socket (or the socket drained), a turn later. */
  publish(name: string, value: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.publish(`${this.prefix}metric/${name.replaceAll('.', '/')}`, value, PUBLISH, (err) =>
        err ? reject(err) : setImmediate(resolve),
      );
    });
  }

  /** `count` metric publishes of the cycle without waiting, the last one awaited like publish(). */
  burst(count: number): Promise<void> {
    for (let k = 0; k < count - 1; k++) this.next();
    return new Promise((resolve, reject) => this.next((err) => (err ? reject(err) : setImmediate(resolve))));
  }

  /** The next metric publish of the cycle. */
  next(cb?: (err?: Error) => void): void {
    const j = this.step % METRICS.length;
    const i = Math.floor(this.step / METRICS.length);
    this.step++;
    this.client.publish(this.topics[j]!, METRICS[j]![1](i), PUBLISH, cb);
  }

  async close(): Promise<void> {
    await this.client.endAsync().catch(() => undefined);
  }
}

class StatusReader {
  private readonly base: string;
  private readonly query: string;
  requests = 0;

  constructor(httpPort: number, user: string, password: string) {
    this.base = `http://127.0.0.1:${httpPort}/api/status/`;
    this.query = `?username=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}`;
  }

  /** The `soc` field of `GET /api/status/<id>` (undefined when the vehicle has no `S` record yet). */
  async soc(id: string): Promise<string | undefined> {
    this.requests++;
    const r = await fetch(this.base + id + this.query);
    if (r.status !== 200) throw new Error(`GET /api/status/${id}: HTTP ${r.status} ${await r.text()}`);
    const body = (await r.json()) as { soc?: unknown };
    return typeof body.soc === 'string' ? body.soc : undefined;
  }

  /**
   * Polls the vehicles round-robin, one request at a time, until each has shown soc `want`;
   * resolves with the time (performance.now()) of the response that showed the last one.
   */
  async waitAll(ids: readonly string[], want: string, timeoutMs: number): Promise<number> {
    const pending = new Set(ids);
    const deadline = performance.now() + timeoutMs;
    let seenAt = performance.now();
    while (pending.size > 0) {
      const round = performance.now();
      for (const id of [...pending]) {
        if ((await this.soc(id)) === want) {
          seenAt = performance.now();
          pending.delete(id);
        }
      }
      if (pending.size === 0) break;
      if (performance.now() > deadline) {
        throw new Error(`${pending.size} vehicle(s) did not show soc ${want} in /api/status within ${timeoutMs} ms (e.g. ${[...pending][0]})`);
      }
      const wait = round + POLL_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    return seenAt;
  }
}

/** Every vehicle publishes as fast as its socket takes it until `seconds` pass, then soc `marker`. */
async function floodWindow(
  server: ServerProcess,
  vehicles: readonly BenchVehicle[],
  status: StatusReader,
  seconds: number,
  marker: string,
): Promise<ThroughputResult> {
  let stop = false;
  let published = 0;
  const cpu0 = server.cpuSeconds();
  const client0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  const t0 = performance.now();
  const timer = setTimeout(() => (stop = true), seconds * 1000);
  await Promise.all(
    vehicles.map(async (v) => {
      while (!stop) {
        await v.burst(CHUNK);
        published += CHUNK;
      }
      await v.publish('v.b.soc', marker);
      published++;
    }),
  );
  clearTimeout(timer);
  const sentAt = performance.now();
  const polls0 = status.requests;
  const seenAt = await status.waitAll(
    vehicles.map((v) => v.id),
    marker,
    120_000,
  );
  const cpu1 = server.cpuSeconds();
  const client1 = process.cpuUsage(client0);
  const machine = machineBusySeconds() - machine0;
  const processedSeconds = (seenAt - t0) / 1000;
  const sendSeconds = (sentAt - t0) / 1000;
  return {
    vehicles: vehicles.length,
    published,
    sendSeconds,
    processedSeconds,
    drainMs: seenAt - sentAt,
    processedPerSecond: published / processedSeconds,
    sentPerSecond: published / sendSeconds,
    serverCpu: (cpu1 - cpu0) / processedSeconds,
    clientCpu: (client1.user + client1.system) / 1e6 / processedSeconds,
    otherCpu: Math.max(0, machine - (cpu1 - cpu0) - (client1.user + client1.system) / 1e6) / processedSeconds,
    markerPolls: status.requests - polls0,
  };
}

/** Sets soc to a value the vehicle has not shown: `10.0`–`79.9`, stepping by 0.1 and wrapping. */
function latencyValue(k: number): string {
  return (10 + ((k * 37) % 700) / 10).toFixed(1);
}

async function latencyRun(
  label: string,
  probe: BenchVehicle,
  background: readonly BenchVehicle[],
  status: StatusReader,
  samples: number,
  backgroundRate: number,
  firstSample: number,
): Promise<LatencyResult> {
  // paced background load: every 5 ms, the publishes due by now, spread round-robin
  let bgSent = 0;
  let bgTurn = 0;
  const bgStart = performance.now();
  const pace =
    backgroundRate > 0 && background.length > 0
      ? setInterval(() => {
          const due = Math.floor(((performance.now() - bgStart) / 1000) * backgroundRate) - bgSent;
          for (let k = 0; k < due; k++) {
            background[bgTurn++ % background.length]!.next();
          }
          bgSent += Math.max(0, due);
        }, 5)
      : null;
  if (pace) await sleep(500); // let the load settle

  const latencies: number[] = [];
  let intervals = 0;
  let intervalSum = 0;
  let last = await status.soc(probe.id);
  for (let k = 0; k < samples; k++) {
    let want = latencyValue(firstSample + k);
    if (want === last) want = latencyValue(firstSample + k + 1);
    const t0 = performance.now();
    await probe.publish('v.b.soc', want);
    let prevRequest = -1;
    for (;;) {
      const req = performance.now();
      if (prevRequest >= 0) {
        intervals++;
        intervalSum += req - prevRequest;
      }
      prevRequest = req;
      const soc = await status.soc(probe.id);
      if (soc === want) {
        latencies.push(performance.now() - t0);
        break;
      }
      if (performance.now() - t0 > 10_000) throw new Error(`${probe.id}: soc ${want} not shown within 10 s (still ${soc})`);
      const wait = req + POLL_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    last = want;
    await sleep(1 + (k % 5)); // a little jitter between samples
  }

  let backgroundDrainMs: number | undefined;
  let backgroundPerSecond = 0;
  if (pace) {
    clearInterval(pace);
    backgroundPerSecond = bgSent / ((performance.now() - bgStart) / 1000);
    const sentAt = performance.now();
    await Promise.all(background.map((v) => v.publish('v.b.soc', BACKGROUND_END_SOC)));
    backgroundDrainMs =
      (await status.waitAll(
        background.map((v) => v.id),
        BACKGROUND_END_SOC,
        120_000,
      )) - sentAt;
  }
  latencies.sort((a, b) => a - b);
  return {
    label,
    samples: latencies.length,
    p50Ms: percentile(latencies, 50),
    p90Ms: percentile(latencies, 90),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? NaN,
    pollIntervalMs: intervals ? intervalSum / intervals : NaN,
    backgroundPerSecond,
    backgroundDrainMs,
  };
}

export async function runMqttBridge(server: ServerProcess, opts: MqttBridgeOptions): Promise<MqttBridgeResult> {
  if (server.mqttPort === null) throw new Error('the server runs without its MQTT broker: start it with --mqtt-port 0');
  const port = server.mqttPort;
  const status = new StatusReader(server.httpPort, opts.user, opts.password);
  const vehicles: BenchVehicle[] = [];
  try {
    // connect in groups (the first logins run scrypt; later ones hit the credential cache)
    for (let k = 0; k < opts.ids.length; k += 25) {
      vehicles.push(...(await Promise.all(opts.ids.slice(k, k + 25).map((id) => BenchVehicle.connect(port, id, opts.user, opts.password)))));
    }
    // online, every metric once, soc = WARM_SOC last; seen by the server for every vehicle
    await Promise.all(
      vehicles.map(async (v) => {
        await v.publish('s.v3.connected', 'yes');
        await v.burst(METRICS.length);
        await v.publish('v.b.soc', WARM_SOC);
      }),
    );
    await status.waitAll(
      vehicles.map((v) => v.id),
      WARM_SOC,
      60_000,
    );
    const connectedRssBytes = server.rss();

    await floodWindow(server, vehicles, status, 1, WARM_END_SOC); // warm-up (JIT, buffers)
    const throughput = await floodWindow(server, vehicles, status, opts.seconds, END_SOC);

    const [probe, ...background] = vehicles as [BenchVehicle, ...BenchVehicle[]];
    const latency: LatencyResult[] = [];
    latency.push(await latencyRun('idle', probe, background, status, opts.samples, 0, 0));
    if (background.length > 0) {
      const rate = Math.round(throughput.processedPerSecond / 2);
      latency.push(await latencyRun('loaded', probe, background, status, opts.samples, rate, opts.samples + 1));
    }
    return { throughput, latency, connectedRssBytes, peakRssBytes: server.peakRss() };
  } finally {
    await Promise.all(vehicles.map((v) => v.close()));
  }
}

export function reportMqttBridge(r: MqttBridgeResult): string {
  const t = r.throughput;
  const lines = [
    `MQTT bridge: ${t.vehicles} v3 vehicles on the embedded broker (retained QoS 0 metric publishes → bridge → /api/status)`,
    `  metric updates processed per second: ${fmt(t.processedPerSecond)}  (${fmt(t.published)} publishes; window ${fmt(t.sendSeconds, 2)} s ` +
      `+ ${fmt(t.drainMs)} ms until /api/status showed every vehicle's last value)`,
    `    load generator sent ${fmt(t.sentPerSecond)}/s: ` +
      (t.drainMs > BACKLOG_MS
        ? `server-bound (it was still working off its backlog ${fmt(t.drainMs / 1000, 1)} s after the last publish)`
        : `the server kept up (the load generator was the limit: a lower bound)`),
    `    CPU over that time, % of one core: server ${fmt(t.serverCpu * 100)}, load generator ${fmt(t.clientCpu * 100)}, ` +
      `other processes ${fmt(t.otherCpu * 100)}`,
  ];
  for (const l of r.latency) {
    const load =
      l.backgroundPerSecond > 0
        ? `${t.vehicles - 1} other vehicles publishing ${fmt(l.backgroundPerSecond)} updates/s, all seen ${fmt(l.backgroundDrainMs ?? NaN)} ms after their last`
        : 'other vehicles idle';
    lines.push(
      `  latency publish v.b.soc → GET /api/status shows it (${load}):`,
      `    p50 ${fmt(l.p50Ms, 1)} ms, p90 ${fmt(l.p90Ms, 1)} ms, p99 ${fmt(l.p99Ms, 1)} ms, max ${fmt(l.maxMs, 1)} ms ` +
        `(${l.samples} samples; polled every ${fmt(l.pollIntervalMs, 1)} ms on average; includes the 20 ms render delay)`,
    );
  }
  lines.push(`  server RSS: ${mib(r.connectedRssBytes)} with every vehicle online, peak ${mib(r.peakRssBytes)} (VmHWM)`);
  return lines.join('\n');
}
