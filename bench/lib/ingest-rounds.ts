/**
 * MP ingest compared two ways in one run (the `ha` and `alerts` benchmarks): servers started one
 * way and the other in turn, `rounds` each way, alternating, each round with a server and cars of
 * its own; a round is measured once its server is idle and the rest of the machine quiet. Also
 * the medians the reports of such a comparison give.
 */
import { runIngest, type IngestResult } from '../mp-ingest.js';
import { waitForQuiet } from './proc.js';
import type { ServerProcess } from './server-process.js';
import { fmt, percentile } from './stats.js';

export type Way = 'off' | 'on';

/** The rounds of each way, in the order they ran. */
export interface RoundPair<R> {
  off: R[];
  on: R[];
}

/** Waits until the server used at most 5 % of a core over two 200 ms windows in a row (at most `timeoutMs`). */
export async function serverSettled(server: ServerProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let calm = 0;
  while (calm < 2 && Date.now() < deadline) {
    const before = server.cpuSeconds();
    await new Promise((r) => setTimeout(r, 200));
    calm = server.cpuSeconds() - before <= 0.01 ? calm + 1 : 0;
  }
  if (calm < 2) process.stderr.write(`  (the server stayed busy for ${timeoutMs / 1000} s; measuring anyway)\n`);
}

/**
 * Runs `round` for off, then on, `rounds` times, each with `cars` vehicles of its own taken in
 * turn from `vehicles` (which holds 2 × rounds × cars; `name` says whose they are when it does not).
 */
export async function alternateRounds<R>(
  name: string,
  vehicles: readonly string[],
  cars: number,
  rounds: number,
  round: (way: Way, own: readonly string[], r: number) => Promise<R>,
): Promise<RoundPair<R>> {
  const pair: RoundPair<R> = { off: [], on: [] };
  let next = 0;
  for (let r = 0; r < rounds; r++) {
    for (const way of ['off', 'on'] as const) {
      const own = vehicles.slice(next, next + cars);
      next += cars;
      if (own.length < cars) throw new Error(`the ${name} benchmark needs ${2 * rounds * cars} vehicles`);
      pair[way].push(await round(way, own, r));
    }
  }
  return pair;
}

/** Server CPU per car message, µs. */
export const cpuPerMessage = (r: IngestResult): number => (r.serverCpuShare * 1e6) / r.carMessagesPerSecond;

/**
 * One measured round on a started server: waits until it is idle (what it reads at start done)
 * and other processes use at most 20 % of a core (10 s at most), runs the ingest (`onStart` just
 * before), and says the round's figures on stderr after `label`.
 */
export async function measureIngest(
  server: ServerProcess,
  own: readonly string[],
  password: string,
  seconds: number,
  payloads: (k: number, n: number) => string[],
  label: string,
  onStart?: () => void,
): Promise<IngestResult> {
  await serverSettled(server);
  await waitForQuiet(0.2, 10_000);
  onStart?.();
  const result = await runIngest([server], own, password, seconds, 0, payloads);
  process.stderr.write(
    `  ${label}: ${fmt(result.carMessagesPerSecond)} car messages/s, ${fmt(cpuPerMessage(result), 2)} µs each; ` +
      `CPU server ${fmt(result.serverCpuShare * 100)} %, generator ${fmt(result.generatorCpuShare * 100)} %, other ${fmt(result.otherCpuShare * 100)} %; round trip p50 ${fmt(result.rttP50Ms, 2)} ms\n`,
  );
  return result;
}

export const median = (xs: readonly number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

/** The median car messages per second of the rounds. */
export const medianRate = (rs: readonly IngestResult[]): number => median(rs.map((r) => r.carMessagesPerSecond));

/** The median server CPU per car message of the rounds, µs. */
export const medianCpu = (rs: readonly IngestResult[]): number => median(rs.map(cpuPerMessage));

/** Each round: messages/s (CPU per message, other processes' CPU meanwhile`more`), comma-separated. */
export function eachRound<R extends IngestResult>(rs: readonly R[], more: (r: R) => string = () => ''): string {
  return rs.map((r) => `${fmt(r.carMessagesPerSecond)} (${fmt(cpuPerMessage(r), 2)} µs, other processes ${fmt(r.otherCpuShare * 100)} %${more(r)})`).join(', ');
}
