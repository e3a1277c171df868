/**
 * The module's v2 server link (`server v2`): a car client of the message protocol, as FW3's
 * `ovms_server_v2.cpp` behaves (docs/protocol/mp.md, docs/protocol/messages.md, docs/protocol/mqtt-v3.md §11.6):
 * - logs in with scheme 0 (TCP or TLS), then sends F and every record (S, D, L, Y, W);
 * - S and D again every `updatetime.connected` seconds while apps are connected (`Z` > 0), every
 *   `updatetime.idle` seconds otherwise, and at once when a state in them changes (charge state,
 *   doors, lock: KEY_FIELDS); the other records when they change; a full set when the app count
 *   rises;
 * - answers commands `C` (mp-commands.ts), pings `A`; sends notifications as `P`, and the
 *   firmware's trip log at every ignition change and grid log at every charge state change as `h`
 *   historical records (vehicle/day-logs.ts);
 * - with a backfill (`vts module --simulate day`), sends it after the login and before the live
 *   records, waiting for the server's acknowledgements (mp-backfill.ts);
 * - never gives up: after a failed connect, a refused login or a drop it retries with the capped,
 *   jittered back-off of backoff.ts (by default 0.8–1 s, doubling up to 48–60 s), logging each
 *   failure at warn level with its reason and the delay.
 *
 * Everything the link does (sending, answering) runs on one queue, the module's single network
 * task: a long command (`sleep 30` through command 7) holds everything else up, as on a module.
 */
import type tls from 'node:tls';
import { renderRecords } from '../../core/metrics/v2-records.js';
import { encodeText } from '../../core/mp/command.js';
import { VtsError } from '../../errors.js';
import { isMpClientError, MpClient, type MpCloseInfo } from '../../mp-client/mp-client.js';
import type { LinkStatus, Notification } from '../console/services.js';
import { Backoff, secondsLeft } from './backoff.js';
import type { LinkHost } from './host.js';
import { answerCommand } from './mp-commands.js';
import { GRID_LOG_RECORD, GRID_LOG_TYPE, gridLogData, TRIP_LOG_RECORD, TRIP_LOG_TYPE, tripLogData } from '../vehicle/day-logs.js';
import { LOG_LIFETIME } from '../vehicle/simulated-day.js';
import { distanceKm } from '../vehicle/route.js';
import type { HistoryBackfill } from './mp-backfill.js';

export interface MpLinkOptions {
  host: string;
  port: number;
  /** TLS options (e.g. `{ rejectUnauthorized: false }`), or undefined for plain TCP. */
  tls?: tls.ConnectionOptions;
  vehicleId: string;
  password: string;
  /** Seconds between S/D updates with apps connected (default 60) and without (default 600). */
  intervalConnected?: number;
  intervalIdle?: number;
  /** Reconnect back-off (ms): the first delay (default 1000) and the cap (default 60000); see backoff.ts. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Random source of the back-off's jitter (default Math.random). */
  random?: () => number;
  /** History to send, acknowledged, before the live records (`--simulate day`; mp-backfill.ts). */
  backfill?: HistoryBackfill;
}

const PERIODIC = new Set(['S', 'D']);

/**
 * The fields of S and D whose change is sent at once, like FW3's MetricModified triggers: charge
 * state, sub-state and mode (S 5, 6, 13–15), and the door, lock, valet and status bits (D 1–3, 12,
 * 16, 18). Other changes (SOC, temperatures) wait for the periodic update.
 */
const KEY_FIELDS: Record<string, readonly number[]> = { S: [4, 5, 12, 13, 14], D: [0, 1, 2, 11, 15, 17] };

function keyOf(code: string, data: string): string {
  const f = data.split(',');
  return (KEY_FIELDS[code] ?? []).map((i) => f[i] ?? '').join(',');
}
const NOTIFICATION_CODES: Partial<Record<Notification['type'], string>> = { info: 'I', alert: 'A', error: 'E' };

/** A failed connect or login: the status text, the log message and the reason (no secret in any). */
function failure(err: unknown): { status: string; message: string; code?: string; reason: string } {
  const reason = err instanceof Error ? err.message : String(err);
  if (!isMpClientError(err)) return { status: 'Error: Connection failed', message: 'v2 link connection failed', reason };
  switch (err.code) {
    case 'MP_CONNECT_FAILED':
      return { status: 'Error: Connection failed', message: 'v2 link connection failed', code: err.code, reason };
    case 'MP_LOGIN_CLOSED':
      // the server refuses a login by closing the connection, without saying why (docs/protocol/mp.md)
      return {
        status: 'Error: Login refused by the server (wrong vehicle id or password?)',
        message: 'v2 link login failed',
        code: err.code,
        reason: `${reason} (the server refuses a wrong vehicle id or password this way)`,
      };
    case 'MP_LOGIN_REJECTED':
      // the message carries no server reply (its token and digest): err.reply does
      return { status: 'Error: Server authentication failed', message: 'v2 link login failed', code: err.code, reason };
    case 'MP_LOGIN_TIMEOUT':
      return { status: 'Error: No answer from the server', message: 'v2 link login failed', code: err.code, reason };
    default:
      return { status: 'Error: Connection failed', message: 'v2 link connection failed', code: err.code, reason };
  }
}

export class MpLink {
  private client: MpClient | null = null;
  private running = false;
  private state: LinkStatus = { started: false, state: 'Stopped', detail: 'OVMS v2 server has not been started' };
  private apps = 0;
  private task: Promise<void> = Promise.resolve();
  private readonly sent = new Map<string, string>();
  private lastPeriodic = 0;
  private readonly backoff: Backoff;
  /** The status text of the last failure and when the retry is due (epoch ms), while waiting. */
  private waiting: { reason: string; deadline: number } | null = null;
  /** Counts start()s, so that a connect still in flight from an earlier run is dropped. */
  private generation = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private readonly features = new Map<number, string>();
  private unsubscribe: (() => void) | null = null;
  private ackId = 0;
  /** Ignition and charge state at the last tick (null before the first): their changes send the firmware logs. */
  private wasDriving: boolean | null = null;
  private chargeState: string | null = null;

  constructor(
    private readonly host: LinkHost,
    private readonly opts: MpLinkOptions,
  ) {
    this.backoff = new Backoff({ minMs: opts.minBackoffMs, maxMs: opts.maxBackoffMs, random: opts.random });
  }

  status(): LinkStatus {
    const w = this.waiting;
    if (w && this.running) return { started: true, state: 'Waiting', detail: `${w.reason}. Retrying in ${secondsLeft(w.deadline)} second(s)` };
    return { ...this.state };
  }

  get connected(): boolean {
    return this.client !== null;
  }

  start(): boolean {
    if (this.running) return false;
    this.running = true;
    this.generation++;
    this.backoff.reset();
    this.unsubscribe = this.host.onNotification((n) => this.enqueue(() => this.notify(n)));
    this.state = { started: true, state: 'Connecting', detail: `Connecting to ${this.opts.host}:${this.opts.port}` };
    void this.connect();
    return true;
  }

  async stop(): Promise<boolean> {
    if (!this.running) return false;
    this.running = false;
    this.waiting = null;
    this.unsubscribe?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.retryTimer = this.tickTimer = null;
    const c = this.client;
    this.client = null;
    this.opts.backfill?.connectionLost();
    await c?.close();
    this.state = { started: false, state: 'Stopped', detail: 'OVMS v2 server has not been started' };
    this.host.setPeers('v2', 0, false);
    return true;
  }

  /** Sends every record again (`server v2 update all`), or only the changed ones. */
  update(all: boolean): void {
    this.enqueue(async () => {
      if (all) this.sent.clear();
      this.sendRecords(true);
    });
  }

  private enqueue(job: () => Promise<void> | void): void {
    this.task = this.task.then(job).catch((err: unknown) => this.host.log.warn({ err, link: 'v2' }, 'v2 link task failed'));
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const o = this.opts;
    const generation = this.generation;
    this.retryTimer = null;
    this.waiting = null;
    this.state = { started: true, state: 'Connecting', detail: `Connecting to ${o.host}:${o.port}` };
    try {
      const client = await MpClient.connect({
        host: o.host,
        port: o.port,
        transport: o.tls ? 'tls' : 'tcp',
        tls: o.tls,
        clientType: 'C',
        vehicleId: o.vehicleId,
        scheme: 0,
        password: o.password,
        buffer: false,
      });
      if (!this.running || generation !== this.generation) {
        await client.close();
        return;
      }
      this.client = client;
      this.backoff.reset();
      this.state = { started: true, state: 'Connected', detail: 'OVMS V2 login successful, and crypto channel established' };
      this.host.log.info({ vehicle: o.vehicleId, server: `${o.host}:${o.port}` }, 'v2 link connected');
      this.host.setPeers('v2', 0, true);
      client.on('message', (m) => {
        // acks of the backfill are taken at once: the network task is busy sending it
        if (m.code === 'h' && o.backfill?.ack(m.data)) return;
        this.enqueue(() => this.onMessage(m.code, m.data));
      });
      client.on('close', (info) => this.onClose(client, info));
      this.sent.clear();
      const backfill = o.backfill;
      if (backfill && !backfill.finished) {
        this.enqueue(() =>
          backfill.run({ send: (data) => client.send('h', data), now: () => this.host.now(), nextAckId: () => ++this.ackId }),
        );
      }
      this.enqueue(() => this.sendRecords(true));
      this.tickTimer = setInterval(() => this.enqueue(() => this.tick()), 1000);
      this.tickTimer.unref();
    } catch (err) {
      if (!this.running || generation !== this.generation) return;
      const f = failure(err);
      if (o.backfill && (f.code === 'MP_LOGIN_CLOSED' || f.code === 'MP_LOGIN_REJECTED')) {
        o.backfill.fail(new VtsError('VTS_ERR_AUTH', `the server refused the login of ${o.vehicleId}: ${f.reason}`));
      }
      const delay = this.scheduleRetry(f.status);
      this.host.log.warn({ link: 'v2', vehicle: o.vehicleId, server: `${o.host}:${o.port}`, code: f.code, reason: f.reason, retryInMs: delay }, f.message);
    }
  }

  private onClose(client: MpClient, info: MpCloseInfo): void {
    if (this.client !== client) return;
    this.client = null;
    this.opts.backfill?.connectionLost();
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.apps = 0;
    this.host.setPeers('v2', 0, false);
    if (!this.running) return;
    const delay = this.scheduleRetry('Disconnected from OVMS Server V2');
    const reason = info.error?.message ?? 'closed by the server';
    this.host.log.warn({ link: 'v2', vehicle: this.opts.vehicleId, server: `${this.opts.host}:${this.opts.port}`, reason, retryInMs: delay }, 'v2 link dropped');
  }

  /**
   * Waits for the back-off's next delay, then connects again; returns the delay (ms). The timer
   * is unreferenced: a program that embeds modules decides itself how long it runs (`vts module`
   * holds the process until SIGTERM).
   */
  private scheduleRetry(reason: string): number {
    const delay = this.backoff.next();
    this.waiting = { reason, deadline: Date.now() + delay };
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
    return delay;
  }

  private send(code: string, data: string): void {
    if (this.client) this.client.send(code, data);
  }

  private async onMessage(code: string, data: string): Promise<void> {
    if (code === 'A') return this.send('a', '');
    if (code === 'Z') {
      const n = Number(data) || 0;
      const rose = n > this.apps;
      this.apps = n;
      this.host.setPeers('v2', n, true);
      if (rose) this.sendRecords(true);
      return;
    }
    if (code === 'h') return; // ack of a historical record
    if (code !== 'C') return;
    const reply = await answerCommand(this.host, data, this.features);
    for (const line of reply.lines) this.send('c', line);
    reply.later?.then((line) => this.enqueue(() => this.send('c', line))).catch(() => undefined);
    reply.after?.();
  }

  private tick(): void {
    const m = this.host.metrics;
    const driving = m.bool('v.e.on');
    if (this.wasDriving !== null && this.wasDriving !== driving) this.sendLog(TRIP_LOG_TYPE, TRIP_LOG_RECORD, tripLogData(m, this.locationName()));
    this.wasDriving = driving;
    const chargeState = m.str('v.c.state') ?? '';
    if (this.chargeState !== null && this.chargeState !== chargeState) this.sendLog(GRID_LOG_TYPE, GRID_LOG_RECORD, gridLogData(m, this.locationName()));
    this.chargeState = chargeState;
    const interval = this.apps > 0 ? (this.opts.intervalConnected ?? 60) : (this.opts.intervalIdle ?? 600);
    const periodic = this.host.now() - this.lastPeriodic >= interval;
    this.sendRecords(periodic);
  }

  /** Sends the records that changed since they were last sent; S and D also when `periodic`. */
  private sendRecords(periodic: boolean): void {
    if (!this.client) return;
    const unit = this.host.config.get('vehicle', 'units.distance') === 'M' ? 'M' : 'K';
    const now = this.host.now();
    for (const { code, data } of renderRecords(this.host.metrics, { distanceUnit: unit, now })) {
      const last = this.sent.get(code);
      const changed = last !== data;
      const due = PERIODIC.has(code) ? periodic || last === undefined || keyOf(code, last) !== keyOf(code, data) : changed;
      if (!due) continue;
      this.sent.set(code, data);
      this.send(code, data);
    }
    if (periodic) this.lastPeriodic = now;
  }

  private notify(n: Notification): void {
    const t = NOTIFICATION_CODES[n.type];
    if (t === 'E') this.send('P', 'E' + n.text);
    else if (t) this.send('P', t + encodeText(n.text));
    else if (n.type === 'data') this.send('h', `${++this.ackId},0,${n.text.split('\n', 1)[0]}`);
  }

  /** A firmware log (trip, grid) as an acknowledged historical record, kept 7 days. */
  private sendLog(type: string, recordNumber: number, data: string): void {
    this.send('h', `${++this.ackId},0,${type},${recordNumber},${LOG_LIFETIME},${data}`);
  }

  /** The car's location name: `home` within its radius of the car's home (config `locations home`), else none. */
  private locationName(): string {
    const home = (this.host.config.get('locations', 'home') ?? '').split(',').map(Number);
    const m = this.host.metrics;
    if (home.length < 2 || home.some((v) => !Number.isFinite(v))) return '';
    const here = { lat: m.num('v.p.latitude') ?? 0, lon: m.num('v.p.longitude') ?? 0 };
    return distanceKm(here, { lat: home[0]!, lon: home[1]! }) * 1000 <= (home[2] ?? 100) ? 'home' : '';
  }
}
