/**
 * MP ingest through cluster nodes compared with one node, in the same run (runIngest's loop of
 * S, D, L and a ping per car): the same N cars (1) on one node that is not clustered, (2) on one
 * clustered node A while node B is up and idle, (3) split over A and B (car k on node k mod 2).
 * Other processes on the machine come and go, so the three cases take turns in `rounds` rounds
 * (cars connected anew, a 1 s warm-up, then `seconds / rounds` measured); a case's figures are
 * its rounds' added up (rates and CPU over its whole time; batch p50 the mean of the rounds', p99
 * the highest round's; RSS the highest).
 *
 * How the 70 % target is judged: on 2 cores shared with the load generator (and Redis), two busy
 * nodes cannot each get the core that one node gets alone, so the per-node rate of (3) falls with
 * the machine, not with the cluster. A clustered node's own capacity is read twice: the rate of
 * (2), where it has the same CPU budget as the single node, and its server CPU per car message
 * in (3), against the single node's. Both are shown with the total and per-node rates of (3).
 */
import type { ServerProcess } from './lib/server-process.js';
import { runIngest, type IngestResult } from './mp-ingest.js';
import { fmt, mib } from './lib/stats.js';
import { waitForQuiet } from './lib/proc.js';

export interface ClusterIngestResult {
  single: IngestResult;
  clusteredAlone: IngestResult;
  twoNodes: IngestResult;
  /** Each case's car messages per second in each round. */
  rounds: Record<'single' | 'clusteredAlone' | 'twoNodes', number[]>;
}

/** The rounds of one case as one result. */
function combine(rounds: IngestResult[]): IngestResult {
  const first = rounds[0]!;
  const seconds = rounds.reduce((a, r) => a + r.seconds, 0);
  const over = (f: (r: IngestResult) => number): number => rounds.reduce((a, r) => a + f(r) * r.seconds, 0) / seconds;
  return {
    ...first,
    seconds,
    batches: rounds.reduce((a, r) => a + r.batches, 0),
    forwardedPerSecond: over((r) => r.forwardedPerSecond),
    carMessagesPerSecond: over((r) => r.carMessagesPerSecond),
    linesPerSecond: over((r) => r.linesPerSecond),
    rttP50Ms: rounds.reduce((a, r) => a + r.rttP50Ms, 0) / rounds.length,
    rttP99Ms: Math.max(...rounds.map((r) => r.rttP99Ms)),
    serverCpuShare: over((r) => r.serverCpuShare),
    serverRssBytes: Math.max(...rounds.map((r) => r.serverRssBytes)),
    generatorCpuShare: over((r) => r.generatorCpuShare),
    otherCpuShare: over((r) => r.otherCpuShare),
    perServer: first.perServer.map((p, i) => ({
      cars: p.cars,
      carMessagesPerSecond: over((r) => r.perServer[i]!.carMessagesPerSecond),
      cpuShare: over((r) => r.perServer[i]!.cpuShare),
      peakRssBytes: Math.max(...rounds.map((r) => r.perServer[i]!.peakRssBytes)),
    })),
  };
}

export async function runClusterIngest(
  nodes: { single: ServerProcess; a: ServerProcess; b: ServerProcess },
  vehicles: readonly string[],
  password: string,
  seconds: number,
  rounds: number,
  progress: (what: string) => void,
): Promise<ClusterIngestResult> {
  // the closed cars leave, the buffers commit, other processes are quiet
  const settle = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 1000));
    await waitForQuiet();
  };
  const cases = [
    ['single', 'one node, not clustered', [nodes.single]],
    ['clusteredAlone', 'one clustered node (A; B idle)', [nodes.a]],
    ['twoNodes', 'two clustered nodes (cars split over A and B)', [nodes.a, nodes.b]],
  ] as const;
  const results: Record<(typeof cases)[number][0], IngestResult[]> = { single: [], clusteredAlone: [], twoNodes: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [key, label, servers] of cases) {
      await settle();
      progress(`round ${round} of ${rounds}, ${label}: ${vehicles.length} cars`);
      results[key].push(await runIngest(servers, vehicles, password, seconds / rounds));
    }
  }
  const ratesOf = (rs: IngestResult[]): number[] => rs.map((r) => r.carMessagesPerSecond);
  return {
    single: combine(results.single),
    clusteredAlone: combine(results.clusteredAlone),
    twoNodes: combine(results.twoNodes),
    rounds: { single: ratesOf(results.single), clusteredAlone: ratesOf(results.clusteredAlone), twoNodes: ratesOf(results.twoNodes) },
  };
}

const pct = (x: number): string => `${fmt(x * 100)} %`;
const usPer = (cpuShare: number, perSecond: number): number => (cpuShare * 1e6) / perSecond;

export function reportClusterIngest(r: ClusterIngestResult, target: number): string[] {
  const s = r.single;
  const line = (label: string, x: IngestResult, rounds: number[]): string =>
    `    ${label}: ${fmt(x.carMessagesPerSecond)} car messages/s [rounds ${rounds.map((n) => fmt(n)).join(', ')}], batch p50 ${fmt(x.rttP50Ms, 2)} ms, p99 ${fmt(x.rttP99Ms, 2)} ms; ` +
    `server CPU ${fmt(x.serverCpuShare * 100)} % of a core (${fmt(usPer(x.serverCpuShare, x.carMessagesPerSecond), 2)} µs/message), ` +
    `generator ${fmt(x.generatorCpuShare * 100)} %, other ${fmt(x.otherCpuShare * 100)} %; RSS peak ${x.perServer.map((p) => mib(p.peakRssBytes)).join(' + ')}`;
  const singleUs = usPer(s.serverCpuShare, s.carMessagesPerSecond);
  const alone = r.clusteredAlone.carMessagesPerSecond / s.carMessagesPerSecond;
  const perNodeEfficiency = r.twoNodes.perServer.map((p) => singleUs / usPer(p.cpuShare, p.carMessagesPerSecond));
  const total = r.twoNodes.carMessagesPerSecond / s.carMessagesPerSecond;
  const met = alone >= target && perNodeEfficiency.every((e) => e >= target);
  return [
    `  MP ingest (${s.cars} cars, S+D+L+A per batch, ${fmt(s.seconds, 1)} s each, the cases taking turns in ${r.rounds.single.length} rounds):`,
    line('one node, not clustered', s, r.rounds.single),
    line('one clustered node (A, B idle)', r.clusteredAlone, r.rounds.clusteredAlone),
    line('two clustered nodes (A + B)', r.twoNodes, r.rounds.twoNodes),
    ...r.twoNodes.perServer.map(
      (p, i) =>
        `      node ${'AB'[i]}: ${p.cars} cars, ${fmt(p.carMessagesPerSecond)} car messages/s, CPU ${fmt(p.cpuShare * 100)} % of a core ` +
        `(${fmt(usPer(p.cpuShare, p.carMessagesPerSecond), 2)} µs/message)`,
    ),
    `    clustered node alone vs one node: ${pct(alone)}; two nodes in total vs one node: ${pct(total)}, per node ${pct(total / 2)}`,
    `    a clustered node's messages per CPU second vs one node's: ${perNodeEfficiency.map((e, i) => `${'AB'[i]} ${pct(e)}`).join(', ')}`,
    `    target ≥ ${pct(target)} (clustered node alone, and per CPU second of each node of two): ${met ? 'met' : 'missed'}`,
  ];
}
