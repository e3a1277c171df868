/**
 * The alerts the server computes (issue 30, docs/alerts.md): MP ingest with 10 rules on every car
 * against the same cars with no rules, in the same run, alternating rounds (bench/lib/ingest-rounds.ts),
 * each round a server and cars of its own. Every car goes through a cycle (`cyclePayloads`, 20 s
 * by default), the same in both ways: it charges at its owner's place `Home`, the charge ends
 * `done` in one cycle and `stopped` in the next, it drives off (out of the place, the SOC falling,
 * the 12 V low) and comes back and parks (ignition off: a drive ends). In the rules rounds every
 * vehicle has soc-reached 80, soc-below 20, charge-started, charge-done, charge-stopped (after 3 s),
 * offline (the default hour), v12-low 12 V (after 3 s), place-arrive and place-leave for `Home`,
 * drive-report, so the engine fires while it is measured. After each round (its server stopped)
 * the store tells the alerts raised (the vehicles' notification history: an alert repeating one
 * of the last 60 s is recorded once, as it is pushed once) and the engine's state saves (the sum of
 * the vehicles' `alert_state` versions).
 */
import { openStore } from '../src/store/open.js';
import type { RuleSettings } from '../src/core/alerts/rules.js';
import type { IngestResult } from './mp-ingest.js';
import { alternateRounds, eachRound, measureIngest, median, medianCpu, medianRate, type RoundPair } from './lib/ingest-rounds.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, mib } from './lib/stats.js';

/** The rounds of the ingest comparison: each way. */
export const ALERTS_ROUNDS = 3;
/** Seconds of a car's cycle (charge, drive, park) by default: a stress, each car's alert state changes about once a second. */
export const ALERTS_CYCLE = 20;
/** The owner's place the cars charge and park at. */
const HOME = { lat: 51.5, lon: -0.1, radius: 200 };
/** The waits of charge-stopped and v12-low (s), short enough to end within a round. */
const AFTER = 3;
const NOTIFICATIONS = '*-Log-Notification';

/**
 * S, D, L of car `k`'s batch `n` (of `cars`), by the wall clock (the server's seconds): where the
 * car is in its cycle of `cycle` seconds, the cars' cycles spread evenly. In twentieths of the
 * cycle: 0–6 charging at Home (the SOC 70 → 94 %), 6–8 `done` in one cycle and `stopped` in the
 * next, 8–14 driving (ignition on, the odometer growing, the position 111 m further each
 * twentieth: out of the 200 m circle from 9, the SOC falling to 15 %, the 12 V at 11.8 V), then
 * parked at Home (ignition off, 12.6 V). Within a second only the ranges, the direction and the
 * energy counter change with `n` (the store still writes a different record each time).
 */
export function cyclePayloads(cycle: number, cars: number): (k: number, n: number) => string[] {
  const scale = cycle / 20;
  return (k, n) => {
    const t = Math.floor(Date.now() / 1000) + Math.floor((k * cycle) / cars);
    const u = (t % cycle) / scale;
    const index = Math.floor(t / cycle);
    const charging = u < 6;
    const driving = u >= 8 && u < 14;
    const state = charging ? 'charging' : index % 2 === 0 ? 'done' : 'stopped';
    const soc = charging ? 70 + 4 * u : u < 8 ? 94 : driving ? Math.max(15, 90 - (u - 7) * 12.5) : 15;
    const driven = Math.round(Math.min(6, Math.max(0, u - 7)) * scale); // tenths of km this cycle
    const odometer = k * 100000 + index * Math.round(6 * scale) + driven;
    const lat = HOME.lat + (driving ? (u - 7) * 0.001 : 0);
    const v12 = driving ? '11.8' : '12.6';
    const range = 300 + (n % 50);
    return [
      `S${soc.toFixed(1)},K,${charging ? 230 : 0},${charging ? 16 : 0},${state},standard,${range},${range - 20},16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0`,
      `D${driving ? 140 : 12},8,4,30,40,25,${driven},${odometer},${driving ? 40 : 0},0,20,2,1,1,${v12},4,12.6,16,35,1.2,21`,
      `L${lat.toFixed(6)},${HOME.lon.toFixed(6)},${n % 360},20,1,1,${driving ? 40 : 0},${driven},2,5.5,${(n / 1000).toFixed(3)},0.100,2,95,AA,9,0.9,0.0,80`,
    ];
  };
}

/** The 10 rules of every vehicle in the rules rounds. */
export function benchRules(place: number): RuleSettings[] {
  return [
    { kind: 'soc-reached', threshold: 80 },
    { kind: 'soc-below', threshold: 20 },
    { kind: 'charge-started' },
    { kind: 'charge-done' },
    { kind: 'charge-stopped', after: AFTER },
    { kind: 'offline', after: 3600 },
    { kind: 'v12-low', threshold: 12, after: AFTER },
    { kind: 'place-arrive', place },
    { kind: 'place-leave', place },
    { kind: 'drive-report' },
  ];
}

/** What a notification's text says fired (src/core/alerts/alert.ts texts). */
const KINDS: [string, RegExp][] = [
  ['soc-reached', / reached \d/],
  ['soc-below', / is down to /],
  ['charge-started', / started charging/],
  ['charge-done', / finished charging/],
  ['charge-stopped', /: charging stopped/],
  ['offline', / has been offline/],
  ['online', / is online again/],
  ['v12-low', /: 12 V battery/],
  ['place-arrive', / arrived at /],
  ['place-leave', / left /],
  ['drive-report', / drove /],
];

export interface AlertsRound extends IngestResult {
  /** Alerts recorded for the round's vehicles (warm-up and the round's end included). */
  alerts: number;
  /** Of them, by kind. */
  kinds: Record<string, number>;
  /** The engine's state saves: the sum of the vehicles' alert_state versions. */
  stateSaves: number;
}

export type AlertsPair = RoundPair<AlertsRound> & { cycle: number };

interface Db {
  dataDir: string;
  database: string | undefined;
}

/** Adds the owner's place `Home`; its id. */
export async function addHome(db: Db, ownerId: number): Promise<number> {
  const store = await openStore(db.dataDir, { database: db.database });
  try {
    const place = await store.drives.addPlace(ownerId, {
      name: 'Home',
      ...HOME,
      timezone: 'Europe/London',
      currency: 'GBP',
      pricePerKwh: 0.25,
      pricePerMinute: 0,
      sessionFee: 0,
      timeOfUse: [],
    });
    return place.id;
  } finally {
    await store.close();
  }
}

/**
 * Before a round's server starts: each vehicle's S, D, L as its car sent them a moment ago (a fleet
 * the server knows, as after a restart; a car never heard of would count as offline since 1970),
 * and the rules given.
 */
async function prepareRound(db: Db, vehicles: readonly string[], rules: readonly RuleSettings[], payloads: (k: number, n: number) => string[]): Promise<void> {
  const store = await openStore(db.dataDir, { database: db.database });
  try {
    const time = Math.floor(Date.now() / 1000);
    for (const [k, id] of vehicles.entries()) {
      for (const data of payloads(k, 0)) store.putCarMessage(id, { code: data[0]!, data: data.slice(1), time, paranoid: false, ptoken: '' });
      for (const rule of rules) await store.alerts.addRule(id, rule, time);
    }
    await store.flush();
  } finally {
    await store.close();
  }
}

/** The alerts recorded for the vehicles and their engine's saves (read once their server stopped). */
async function countAlerts(db: Db, vehicles: readonly string[]): Promise<Pick<AlertsRound, 'alerts' | 'kinds' | 'stateSaves'>> {
  const store = await openStore(db.dataDir, { database: db.database });
  try {
    const kinds: Record<string, number> = {};
    let alerts = 0;
    let stateSaves = 0;
    for (const id of vehicles) {
      for (const rec of await store.getHistorical(id, NOTIFICATIONS, 0)) {
        alerts++;
        const kind = KINDS.find(([, re]) => re.test(rec.data))?.[0] ?? 'other';
        kinds[kind] = (kinds[kind] ?? 0) + 1;
      }
      stateSaves += (await store.alerts.loadState(id))?.version ?? 0;
    }
    return { alerts, kinds, stateSaves };
  } finally {
    await store.close();
  }
}

/**
 * Alternates rounds whose vehicles have no rules and the 10 rules (`rounds` each), each with a
 * server and `cars` vehicles of its own (of `vehicles`, which holds 2 × rounds × cars), the rules
 * written before the round's server starts.
 */
export async function runAlertsIngest(
  start: () => Promise<ServerProcess>,
  db: Db,
  ownerId: number,
  vehicles: readonly string[],
  cars: number,
  password: string,
  seconds: number,
  cycle = ALERTS_CYCLE,
  rounds = ALERTS_ROUNDS,
): Promise<AlertsPair> {
  const rules = benchRules(await addHome(db, ownerId));
  const payloads = cyclePayloads(cycle, cars);
  const pair = await alternateRounds('alerts', vehicles, cars, rounds, async (way, own, r) => {
    await prepareRound(db, own, way === 'on' ? rules : [], payloads);
    const server = await start();
    let result: IngestResult;
    try {
      result = await measureIngest(server, own, password, seconds, payloads, `round ${r + 1} ${way === 'on' ? 'rules' : 'none'}`);
    } finally {
      await server.stop();
    }
    const counted = await countAlerts(db, own);
    process.stderr.write(`    ${fmt(counted.alerts)} alerts recorded, ${fmt(counted.stateSaves)} state saves; server RSS peak ${mib(result.serverRssBytes)}\n`);
    return { ...result, ...counted };
  });
  return { ...pair, cycle };
}

export function reportAlerts(pair: AlertsPair): string {
  const none = medianRate(pair.off);
  const ruled = medianRate(pair.on);
  const rss = (rs: AlertsRound[]): string => mib(median(rs.map((r) => r.serverRssBytes)));
  const kinds: Record<string, number> = {};
  for (const r of pair.on) for (const [k, n] of Object.entries(r.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
  const perRound = (rs: AlertsRound[], f: (r: AlertsRound) => number): string => rs.map((r) => fmt(f(r))).join(', ');
  return [
    `Alerts: MP ingest, ${pair.on[0]?.cars ?? 0} cars, ${pair.on.length} rounds each way (medians), every car in a ${pair.cycle} s cycle of charging, driving out of its place and parking back`,
    `  no rules:          ${fmt(none)} car messages/s, ${fmt(medianCpu(pair.off), 2)} µs server CPU per message, server RSS (peak) ${rss(pair.off)}; rounds: ${eachRound(pair.off, (r) => `, RSS ${mib(r.serverRssBytes)}`)}`,
    `  10 rules per car:  ${fmt(ruled)} car messages/s, ${fmt(medianCpu(pair.on), 2)} µs server CPU per message, server RSS (peak) ${rss(pair.on)}; rounds: ${eachRound(pair.on, (r) => `, RSS ${mib(r.serverRssBytes)}`)}`,
    `  rules / none: ${fmt((ruled / none) * 100)} % of the messages/s, ${fmt((medianCpu(pair.on) / medianCpu(pair.off)) * 100)} % of the CPU per message`,
    `  alerts recorded per round: ${perRound(pair.on, (r) => r.alerts)} (no rules: ${perRound(pair.off, (r) => r.alerts)}); by kind over the rounds: ` +
      Object.entries(kinds)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${k} ${fmt(n)}`)
        .join(', '),
    `  engine state saves per round (alert_state versions): ${perRound(pair.on, (r) => r.stateSaves)}; per 1,000 car messages: ${fmt((median(pair.on.map((r) => r.stateSaves)) * 1000) / median(pair.on.map((r) => r.carMessagesPerSecond * r.seconds)), 2)}`,
  ].join('\n');
}
