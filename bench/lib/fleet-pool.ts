/**
 * The cars of the fleet benchmark together: started at a bounded pace, counted (online, failed
 * tries by reason), and driven by one timer at the parked rate (each car's S/D/L every 600 s and
 * ping every 900 s, at a phase of its own to a tenth of a second, so the fleet's traffic is spread evenly).
 */
import { FleetCar, PARKED_RECORDS_S, PING_S, type FailReason } from './fleet-car.js';

/** The parked traffic's ticks a second. */
const TICKS_PER_S = 10;

/** The cars of each of `n` ticks, by their phases. */
function slots(phases: readonly number[], n: number): number[][] {
  const out = Array.from({ length: n }, (): number[] => []);
  for (const [k, phase] of phases.entries()) out[phase]!.push(k);
  return out;
}

export class FleetPool {
  readonly cars: FleetCar[] = [];
  online = 0;
  /** Failed tries since the last `resetCounts`, by reason (and the error code for connects). */
  failures = new Map<string, number>();
  /** When the last car came online (performance.now ms). */
  lastOnlineAt = 0;
  /** Connect → welcome reply of each successful try since `resetCounts`, ms. */
  loginMs: number[] = [];
  /** Lines the cars have sent after their logins so far: each S, D, L, A, and each answer `a` to a ping (never reset). */
  messages = 0;
  private waiters: { n: number; wake: () => void }[] = [];
  private ticker: NodeJS.Timeout | null = null;
  private readonly recordPhase: number[] = [];
  private readonly pingPhase: number[] = [];

  /** `port`: the server's MP port, unless a car's spec names its own. */
  constructor(specs: readonly { id: string; password: string; address: string; port?: number; localPortOf?: (attempt: number) => number; charging?: boolean }[], port: number) {
    const events = {
      online: (car: FleetCar, at: number) => {
        this.online++;
        this.loginMs.push(at - car.startedAt);
        this.lastOnlineAt = at;
        this.waiters = this.waiters.filter((w) => (this.online >= w.n ? (w.wake(), false) : true));
      },
      failed: (_car: FleetCar, reason: FailReason, detail: string) => {
        const key = detail && reason.startsWith('connect') ? `${reason} (${detail})` : reason;
        this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      },
      dropped: () => void this.online--,
      sent: (_car: FleetCar, lines: number) => void (this.messages += lines),
    };
    for (const s of specs) {
      this.cars.push(new FleetCar(s.id, s.password, s.address, s.port ?? port, events, undefined, s.localPortOf, s.charging));
      this.recordPhase.push(Math.floor(Math.random() * PARKED_RECORDS_S * TICKS_PER_S));
      this.pingPhase.push(Math.floor(Math.random() * PING_S * TICKS_PER_S));
    }
  }

  /** Starts every car, at most `perSecond` a second (a few at a time). */
  async startAll(perSecond: number): Promise<void> {
    const step = Math.max(1, Math.round(perSecond / 100));
    for (let k = 0; k < this.cars.length; k += step) {
      for (const car of this.cars.slice(k, k + step)) car.start();
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Starts every car after a random delay of 0–`maxMs` (as modules do after a restart). */
  startScattered(maxMs: number): void {
    for (const car of this.cars) setTimeout(() => car.start(), Math.random() * maxMs);
  }

  /** Resolves once `n` cars are online, or with false after `timeoutMs`. */
  whenOnline(n: number, timeoutMs: number): Promise<boolean> {
    if (this.online >= n) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.wake !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push({ n, wake });
    });
  }

  /**
   * The parked traffic: every 100 ms, the cars whose phase it is send their records or ping. (Once
   * a second, as before 2026-12-03, put each second's records of the whole fleet in one burst, and
   * so in one write-behind batch of some 300 statements: modules run on clocks of their own.)
   */
  drive(): void {
    if (this.ticker) return;
    const records = slots(this.recordPhase, PARKED_RECORDS_S * TICKS_PER_S);
    const pings = slots(this.pingPhase, PING_S * TICKS_PER_S);
    let tick = 0;
    this.ticker = setInterval(() => {
      for (const k of records[tick % records.length]!) this.cars[k]!.sendRecords();
      for (const k of pings[tick % pings.length]!) this.cars[k]!.ping();
      tick++;
    }, 1000 / TICKS_PER_S);
  }

  resetCounts(): void {
    this.failures = new Map();
    this.loginMs = [];
  }

  /** Closes every car for good. */
  stopAll(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    for (const car of this.cars) car.stop();
    this.online = 0;
  }
}

/** Whether car `k` of a fleet with a `share` (0–1) of its cars charging is one of them (spread evenly over the fleet). */
export function chargingAt(k: number, share: number): boolean {
  return Math.floor((k + 1) * share) > Math.floor(k * share);
}

/** Login times as `p50 x ms, p99 y ms, max z ms`. */
export function formatLogins(loginMs: readonly number[]): string {
  const sorted = [...loginMs].sort((a, b) => a - b);
  const at = (p: number): string => (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN).toFixed(1);
  return `login p50 ${at(50)} ms, p99 ${at(99)} ms, max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1)} ms`;
}

/** Failures as `reason n, reason n`, or `none`. */
export function formatFailures(f: ReadonlyMap<string, number>): string {
  const parts = [...f].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
