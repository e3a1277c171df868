/**
 * Home Assistant and the v3 state mirror (docs/home-assistant.md), three figures:
 * 1. MP ingest with the mirror and the discovery on (the defaults) against both off
 *    (`--mqtt-mirror off --ha-discovery off`), in the same run, alternating rounds, each with cars of
 *    its own sending S, D, L with values that change every batch; in every round one MQTT client
 *    logged in as the owner is subscribed to `ovms/<owner>/#` and `homeassistant/#`, as a Home
 *    Assistant would be (in the off rounds the broker refuses the second filter: nothing is
 *    published there).
 * 2. A Home Assistant connecting to a server that announces 1,000 vehicles of its user (stored S, D,
 *    L and F each): a new client logs in, subscribes `homeassistant/#`, publishes `online` on
 *    `homeassistant/status`, and the time until it has all 1,000 device configs (the retained ones
 *    the subscription brings), then until the 1,000 the birth message makes the server publish
 *    again have come; the bytes it read.
 * 3. The server's RSS with the 1,000 vehicles announced and mirrored.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import { hashPassword } from '../src/auth/password.js';
import { openStore } from '../src/store/open.js';
import type { IngestResult } from './mp-ingest.js';
import { alternateRounds, eachRound, measureIngest, median, medianCpu, medianRate, serverSettled, type RoundPair } from './lib/ingest-rounds.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, mib } from './lib/stats.js';

/** The rounds of the ingest comparison: each way. */
export const HA_ROUNDS = 3;

/** S, D, L of car `k`'s batch `n`: the soc, the odometer and the position change every batch. */
export function changingPayloads(k: number, n: number): string[] {
  const soc = (20 + ((k * 7 + n) % 700) / 10).toFixed(1);
  const odometer = 100000 + k * 1000 + n;
  const lat = (51 + (n % 10000) / 100000).toFixed(6);
  return [
    `S${soc},K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0`,
    `D140,8,4,30,40,25,123,${odometer},0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21`,
    `L${lat},-0.100000,90,20,1,1,0,123,2,5.5,100,10,2,95,AA,9,0.9,0.0,80`,
  ];
}

interface Account {
  user: string;
  password: string;
}

/** `p`, or a rejection after `ms` (the timer cleared either way, so it does not hold the process). */
async function within<T>(p: Promise<T>, ms: number, failure: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(failure())), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const connectOwner = (port: number, account: Account, clientId: string): Promise<MqttClient> =>
  connectAsync(`mqtt://127.0.0.1:${port}`, { username: account.user, password: account.password, clientId, clean: true, reconnectPeriod: 0, connectTimeout: 30_000 });

export interface HaIngestRound extends IngestResult {
  /** Messages the Home Assistant client received per second over the round (warm-up included). */
  haMessagesPerSecond: number;
}

export type HaIngestPair = RoundPair<HaIngestRound>;

/**
 * Alternates servers with both features off and on (`rounds` each), each round with cars of its own
 * (`cars` of `vehicles`, which holds 2 × rounds × cars).
 */
export async function runHaIngest(
  start: (args: string[]) => Promise<ServerProcess>,
  vehicles: readonly string[],
  cars: number,
  password: string,
  seconds: number,
  account: Account,
  rounds = HA_ROUNDS,
): Promise<HaIngestPair> {
  return alternateRounds('ha', vehicles, cars, rounds, async (mode, own, r) => {
    const server = await start(['--mqtt-port', '0', ...(mode === 'off' ? ['--mqtt-mirror', 'off', '--ha-discovery', 'off'] : [])]);
    let ha: MqttClient | null = null;
    try {
      ha = await connectOwner(server.mqttPort!, account, `ha-bench-${r}-${mode}`);
      let received = 0;
      ha.on('message', () => received++);
      await ha.subscribeAsync(`ovms/${account.user}/#`, { qos: 0 });
      // with the discovery off the broker refuses this filter (SUBACK 0x80), as it would Home Assistant's
      await ha.subscribeAsync('homeassistant/#', { qos: 0 }).catch((err: unknown) => {
        if (mode === 'on') throw err;
      });
      // Home Assistant's birth message (with the discovery off the broker would refuse it and close the connection)
      if (mode === 'on') await ha.publishAsync('homeassistant/status', 'online');
      let from = 0;
      let started = 0;
      // once the stored vehicles are read and announced, and other processes quiet
      const result = await measureIngest(server, own, password, seconds, changingPayloads, `round ${r + 1} ${mode}`, () => {
        from = received;
        started = performance.now();
      });
      const elapsed = (performance.now() - started) / 1000;
      return { ...result, haMessagesPerSecond: (received - from) / elapsed };
    } finally {
      await ha?.endAsync(true).catch(() => undefined);
      await server.stop();
    }
  });
}

/** The RSS of a server once it has settled (for the same data with both features off). */
export async function settledRss(server: ServerProcess): Promise<number> {
  await new Promise((r) => setTimeout(r, 2000)); // the first flush and resync
  await serverSettled(server);
  return server.rss();
}

export interface HaAnnounceResult {
  vehicles: number;
  /** From the server's listening line to a watcher holding every vehicle's config. */
  announcedAfterS: number;
  rssAnnouncedBytes: number;
  peakRssBytes: number;
  /** The same data served with `--mqtt-mirror off --ha-discovery off`, settled. */
  rssOffBytes?: number;
  reps: {
    connectMs: number;
    /** Connect start → every vehicle's config received (the retained ones of the subscription). */
    allConfigsMs: number;
    /** The birth published → the configs it made the server publish again, all received. */
    birthMs: number;
    /** Connect start → both. */
    totalMs: number;
    bytes: number;
    configBytes: number;
    messages: number;
  }[];
}

/** Adds `count` vehicles of a new owner, each with stored S, D, L and F (before the server starts). */
export async function seedHaVehicles(dataDir: string, database: string | undefined, account: Account, count: number, carPassword: string): Promise<string[]> {
  const store = await openStore(dataDir, { database });
  try {
    const owner = await store.addOwner(account.user, await hashPassword(account.password), '*');
    const ids: string[] = [];
    const time = Math.floor(Date.now() / 1000);
    for (let k = 0; k < count; k++) {
      const id = `HA${String(k).padStart(5, '0')}`;
      await store.addVehicle({ id, ownerId: owner.id, name: `Car ${k}`, carPassword });
      const [s, d, l] = changingPayloads(k, 0);
      for (const data of [s!, d!, l!, `F3.3.004-bench,5YJSA1E2${String(k).padStart(9, '0')},9,0,TR,-,0,0`]) {
        store.putCarMessage(id, { code: data[0]!, data: data.slice(1), time, paranoid: false, ptoken: '' });
      }
      ids.push(id);
    }
    await store.flush();
    return ids;
  } finally {
    await store.close();
  }
}

export async function runHaAnnounce(server: ServerProcess, account: Account, ids: readonly string[], reps: number, startedAt: number): Promise<HaAnnounceResult> {
  const port = server.mqttPort!;
  const wanted = new Set(ids.map((id) => `homeassistant/device/vts_${id}/config`));
  // a watcher until every config is out (retained or live)
  const watcher = await connectOwner(port, account, 'ha-bench-watcher');
  const seen = new Set<string>();
  const announced = new Promise<number>((resolve) => {
    watcher.on('message', (topic, payload) => {
      if (payload.length > 0 && wanted.has(topic)) seen.add(topic);
      if (seen.size === wanted.size) resolve(performance.now());
    });
  });
  await watcher.subscribeAsync('homeassistant/device/+/config', { qos: 0 });
  const announcedAt = await within(announced, 120_000, () => `only ${seen.size} of ${wanted.size} configs after 120 s`);
  await watcher.endAsync(true);
  await serverSettled(server);
  const rssAnnounced = server.rss();

  const out: HaAnnounceResult['reps'] = [];
  for (let i = 0; i < reps; i++) {
    await serverSettled(server);
    const t0 = performance.now();
    const client = await connectOwner(port, account, `ha-bench-new-${i}`);
    const connected = performance.now();
    const retained = new Set<string>();
    let again = 0;
    let configBytes = 0;
    let messages = 0;
    let birthAt = 0;
    let allAt = 0;
    const done = new Promise<number>((resolve) => {
      client.on('message', (topic, payload, packet) => {
        messages++;
        if (!wanted.has(topic) || payload.length === 0) return;
        configBytes += payload.length;
        if (packet.retain) retained.add(topic);
        else again++;
        if (allAt === 0 && retained.size === wanted.size) allAt = performance.now();
        if (allAt !== 0 && again >= wanted.size) resolve(performance.now());
      });
    });
    await client.subscribeAsync('homeassistant/#', { qos: 0 });
    birthAt = performance.now();
    await client.publishAsync('homeassistant/status', 'online');
    const end = await within(done, 60_000, () => `new client: ${retained.size} retained and ${again} again of ${wanted.size} after 60 s`);
    const bytes = (client.stream as unknown as { bytesRead: number }).bytesRead;
    out.push({ connectMs: connected - t0, allConfigsMs: allAt - t0, birthMs: end - birthAt, totalMs: end - t0, bytes, configBytes, messages });
    process.stderr.write(`  new client ${i + 1}: all ${wanted.size} configs after ${fmt(allAt - t0)} ms, the birth's after ${fmt(end - birthAt)} ms, ${mib(bytes)} read\n`);
    await client.endAsync(true);
  }
  return { vehicles: ids.length, announcedAfterS: (announcedAt - startedAt) / 1000, rssAnnouncedBytes: rssAnnounced, peakRssBytes: server.peakRss(), reps: out };
}

export function reportHa(pair: HaIngestPair, announce: HaAnnounceResult): string {
  const off = medianRate(pair.off);
  const on = medianRate(pair.on);
  const reps = announce.reps;
  const ms = (f: (r: HaAnnounceResult['reps'][number]) => number): string => fmt(median(reps.map(f)));
  return [
    `Home Assistant: MP ingest, ${pair.on[0]?.cars ?? 0} cars, ${pair.on.length} rounds each way (medians), an owner's client on ovms/<owner>/# and homeassistant/#`,
    `  mirror and discovery off: ${fmt(off)} car messages/s, ${fmt(medianCpu(pair.off), 2)} µs server CPU per message; rounds: ${eachRound(pair.off)}`,
    `  mirror and discovery on:  ${fmt(on)} car messages/s, ${fmt(medianCpu(pair.on), 2)} µs server CPU per message; rounds: ${eachRound(pair.on)}`,
    `  on / off: ${fmt((on / off) * 100)} % of the messages/s; the client received ${fmt(median(pair.on.map((r) => r.haMessagesPerSecond)))} messages/s (on), ${fmt(median(pair.off.map((r) => r.haMessagesPerSecond)))} (off)`,
    `Home Assistant: ${fmt(announce.vehicles)} vehicles of one owner announced ${fmt(announce.announcedAfterS, 1)} s after the server listened; a new client, ${reps.length} times (p50):`,
    `  connect ${ms((r) => r.connectMs)} ms; connect → all ${fmt(announce.vehicles)} configs (retained) ${ms((r) => r.allConfigsMs)} ms; birth → the ${fmt(announce.vehicles)} configs it brings again ${ms((r) => r.birthMs)} ms; connect → both ${ms((r) => r.totalMs)} ms`,
    `  each: ${reps.map((r) => `${fmt(r.allConfigsMs)} / ${fmt(r.totalMs)} ms`).join(', ')} (all configs / both)`,
    `  received: ${fmt(median(reps.map((r) => r.messages)))} messages, ${mib(median(reps.map((r) => r.bytes)))} read from the socket (config payloads ${mib(median(reps.map((r) => r.configBytes)))}, ${fmt(median(reps.map((r) => r.configBytes)) / (2 * announce.vehicles))} bytes each)`,
    `  server RSS with the ${fmt(announce.vehicles)} vehicles announced and mirrored: ${mib(announce.rssAnnouncedBytes)}; peak ${mib(announce.peakRssBytes)}` +
      (announce.rssOffBytes === undefined ? '' : `; the same data with both off: ${mib(announce.rssOffBytes)}`),
  ].join('\n');
}
