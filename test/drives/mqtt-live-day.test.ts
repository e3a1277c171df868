/**
 * A v3 car (OVMS firmware v3 on MQTT) that publishes live metrics only, no firmware trip or grid
 * logs, through the server's embedded broker: after a scripted day (drives, one that loses the
 * connection, a charge that flaps) the owner sees the same drives and charges as a rebuild of the
 * `S`, `D`, `L` records a v2 car sends for the same day (test/support/drive-records.ts `rebuild`).
 *
 * The car publishes, at each report of the ScriptedCar, the metrics behind the fields of its
 * `S`, `D`, `L` that changed since (as a module publishes its modified metrics); the bridge renders
 * records from them (src/mqtt/bridged-vehicle.ts) and hands to the hub only the ones whose text
 * changed, so a parked v3 car sends nothing while a v2 car repeats itself every ten minutes. The
 * injected clock moves on once the bridge's records for the step are stored and the recorder has
 * done with them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync, type MqttClient } from 'mqtt';
import type { ChargeJson, DriveJson } from '../../src/core/drives/export.js';
import type { Session } from '../../src/core/drives/types.js';
import { METRIC_CATALOG, newMetricSet } from '../../src/core/metrics/catalog.js';
import type { MetricValue } from '../../src/core/metrics/metric.js';
import { metricPayload, parseMetricPayload } from '../../src/core/metrics/payload.js';
import { renderD, renderL, renderS } from '../../src/core/metrics/v2-records.js';
import { eventually } from '../mp/helpers.js';
import { ScriptedCar, rebuild, type Arriving } from '../support/drive-records.js';
import { driveServer, type Clock, type DriveServer } from './helpers.js';

const DAY0 = 1_780_000_000;
const VEHICLE = 'TESTCAR';
const PREFIX = `ovms/demo/${VEHICLE}/`;

type Metric = [name: string, value: MetricValue];

/**
 * The metrics behind the fields of a v2 live record the session tracker reads (docs/protocol/mqtt-v3.md
 * §11): S 1, 5, 6, 12, 34, 35, 39; D 1 (ignition, handbrake), 8; L 1, 2, 5, 7, 11, 12. Values
 * first, the states (charging, ignition) after them: should the bridge render between two
 * publishes of one report (it renders 20 ms after the first), it shows the old state with some new
 * values, never a new state with old values (with a render after every publish, in either order,
 * this day's sessions are the same: tried, not kept, as it takes far longer).
 */
function metricsOf(records: readonly Arriving[]): Metric[] {
  const values: Metric[] = [];
  const states: Metric[] = [];
  for (const { input } of records) {
    const f = input.data.split(',');
    const num = (n: number): number | undefined => (f[n - 1] === undefined || f[n - 1] === '' ? undefined : Number(f[n - 1]));
    const add = (to: Metric[], name: string, v: MetricValue | undefined): void => {
      if (v !== undefined) to.push([name, v]);
    };
    if (input.code === 'S') {
      const state = f[4] ?? '';
      add(values, 'v.b.soc', num(1));
      add(values, 'v.b.soh', num(34));
      add(values, 'v.c.mode', f[5]);
      add(values, 'v.c.kwh', num(12) === undefined ? undefined : num(12)! / 10);
      add(values, 'v.c.kwh.grid', num(39));
      add(values, 'v.c.power', num(35));
      add(states, 'v.c.charging', state === 'charging' || state === 'topoff');
      add(states, 'v.c.state', state);
    } else if (input.code === 'D') {
      const doors1 = num(1) ?? 0;
      add(values, 'v.p.odometer', num(8) === undefined ? undefined : num(8)! / 10);
      add(states, 'v.e.handbrake', (doors1 & 0x40) !== 0);
      add(states, 'v.e.on', (doors1 & 0x80) !== 0);
    } else if (input.code === 'L') {
      add(values, 'v.p.latitude', num(1));
      add(values, 'v.p.longitude', num(2));
      add(values, 'v.p.gpslock', num(5) === 1);
      add(values, 'v.p.speed', num(7));
      add(values, 'v.b.energy.used', num(11));
      add(values, 'v.b.energy.recd', num(12));
    }
  }
  return [...values, ...states];
}

/** The v3 module: publishes its modified metrics; knows what the bridge should render from them. */
class V3Car {
  private client: MqttClient | null = null;
  /** The payload last published per metric (since the connection). */
  private readonly published = new Map<string, string>();
  /** The metrics as the bridge holds them. */
  readonly metrics = newMetricSet();

  constructor(private readonly port: number) {}

  get connected(): boolean {
    return this.client !== null;
  }

  /** Connects as a module does: `s.v3.connected` yes, its will no; everything is published again after. */
  async connect(): Promise<void> {
    this.client = await connectAsync(`mqtt://127.0.0.1:${this.port}`, {
      clientId: VEHICLE,
      username: 'demo',
      password: 'demopass',
      clean: true,
      reconnectPeriod: 0,
      will: { topic: `${PREFIX}metric/s/v3/connected`, payload: Buffer.from('no'), qos: 0, retain: false },
    });
    this.published.clear();
    await this.client.publishAsync(`${PREFIX}metric/s/v3/connected`, 'yes', { qos: 0 });
  }

  /** The connection is lost (no DISCONNECT: the broker publishes the will). */
  lose(): void {
    const c = this.client!;
    this.client = null;
    c.stream.destroy();
    c.end(true);
  }

  async publish(metrics: readonly Metric[], now: number): Promise<void> {
    const c = this.client!;
    for (const [name, value] of metrics) {
      const def = METRIC_CATALOG.get(name);
      const payload = metricPayload(def, value);
      if (this.published.get(name) === payload) continue;
      this.published.set(name, payload);
      this.metrics.set(name, parseMetricPayload(def, payload)!, now);
      await c.publishAsync(`${PREFIX}metric/${name.replaceAll('.', '/')}`, payload, { qos: 0 });
    }
  }

  close(): void {
    this.client?.end(true);
    this.client = null;
  }
}

/** Waits until the vehicle's stored S, D, L are what the bridge renders from the car's metrics. */
async function rendered(s: DriveServer, car: V3Car): Promise<void> {
  const opts = { distanceUnit: 'K' as const, now: s.clock.t };
  const want = { S: renderS(car.metrics, opts), D: renderD(car.metrics, opts), L: renderL(car.metrics, opts) };
  const { store } = s.t.server;
  await eventually(
    async () => {
      await store.flush();
      const got = new Map((await store.getCarMessages(VEHICLE)).map((m) => [m.code, m.data]));
      return got.get('S') === want.S && got.get('D') === want.D && got.get('L') === want.L ? true : undefined;
    },
    `the bridge's S, D, L at ${s.clock.t}`,
    20_000,
  );
}

/**
 * Plays the car's live records as v3 metrics, report by report, on the injected clock; the
 * connection is lost after the report at `lostAt` (until the next report).
 */
async function play(s: DriveServer, car: V3Car, records: readonly Arriving[], lostAt: number): Promise<void> {
  const times = [...new Set(records.map((r) => r.arrival))].sort((a, b) => a - b);
  for (const t of times) {
    s.clock.t = t;
    if (!car.connected) await car.connect();
    await car.publish(metricsOf(records.filter((r) => r.arrival === t)), t);
    await rendered(s, car);
    await s.settle();
    if (t === lostAt) {
      s.clock.t = t + 30;
      car.lose();
      await eventually(async () => (s.t.server.bridge?.vehicle(VEHICLE)?.isOnline === false ? true : undefined), 'the v3 car offline', 20_000);
      await s.settle();
    }
  }
}

function driveFigures(d: DriveJson | Extract<Session, { session: 'drive' }>) {
  return {
    start: d.start,
    end: d.end,
    distance: d.distance,
    startOdometer: d.startOdometer,
    endOdometer: d.endOdometer,
    socStart: d.socStart,
    socEnd: d.socEnd,
    energyUsed: d.energyUsed,
    energyRecovered: d.energyRecovered,
    maxSpeed: d.maxSpeed,
    source: d.source,
  };
}
function chargeFigures(c: ChargeJson | Extract<Session, { session: 'charge' }>) {
  const kind = 'kind' in c ? c.kind : c.chargeKind;
  return { start: c.start, end: c.end, socStart: c.socStart, socEnd: c.socEnd, energyAdded: c.energyAdded, energyFromGrid: c.energyFromGrid, maxPower: c.maxPower, kind, source: c.source };
}

const path = (kind: 'drives' | 'charges', now: number) => `/api/${kind}/${VEHICLE}?from=${DAY0 - 86400}&to=${now + 86400}`;

test('a v3 car publishing live metrics only: the owner sees the drives and charges a v2 car sending the same data gets', async (t) => {
  const day = new ScriptedCar({ start: DAY0, soc: 70, logs: false });
  day.park(3600).drive(1500, 50).park(5400);
  // a drive that loses the connection half way (the last report before: 600 s in)
  const lostAt = day.t + 600;
  day.drive(1200, 60, 30, 600).park(1800).reconnect().park(1200);
  // an AC charge at home that flaps once
  day.charge(3000, 7, 60, 'type2', 1800, 40).park(3600);
  assert.ok(day.records.some((r) => r.arrival === lostAt) && !day.records.some((r) => r.arrival > lostAt && r.arrival < lostAt + 1800));

  const clock: Clock = { t: DAY0 };
  const s = await driveServer(t, clock, undefined, { mqtt: { port: 0, tlsPort: null, wsPort: null } });
  const car = new V3Car(s.t.server.ports.mqtt!);
  t.after(() => car.close());
  await play(s, car, day.records, lostAt);
  const now = day.t + 1200;
  clock.t = now;
  await s.settle();

  const expected = rebuild(day.records.map((r) => r.input), now);
  const drives = await s.json<DriveJson[]>(path('drives', now));
  const charges = await s.json<ChargeJson[]>(path('charges', now));
  assert.equal(drives.length, 2, JSON.stringify(drives.map(driveFigures)));
  assert.equal(charges.length, 1, JSON.stringify(charges.map(chargeFigures)));
  assert.deepEqual(drives.map(driveFigures), expected.list('drive').map(driveFigures));
  assert.deepEqual(charges.map(chargeFigures), expected.list('charge').map(chargeFigures));
});
