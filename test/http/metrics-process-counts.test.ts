/**
 * The process metrics vts computes itself instead of prom-client's walks (src/metrics/process-counts.ts):
 * the same names, help texts, labels and values as prom-client's own, with many sockets open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { openSync, closeSync, readdirSync } from 'node:fs';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { cheaperProcessCounts, openFds } from '../../src/metrics/process-counts.js';

const NAMES = ['process_open_fds', 'nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_resources', 'nodejs_active_resources_total'];

/**
 * The lines of these metrics in a scrape, sorted (the replaced ones come last in the registry),
 * without the resources the scrape itself makes for a moment (immediates, timers) and so the
 * resources' total, which `resourcesTotal` gives.
 */
async function linesOf(registry: Registry): Promise<{ lines: string[]; resourcesTotal: number }> {
  const all = (await registry.metrics()).split('\n');
  const lines = all
    .filter((l) => NAMES.some((n) => l.startsWith(`${n} `) || l.startsWith(`${n}{`) || l.startsWith(`# HELP ${n} `) || l.startsWith(`# TYPE ${n} `)))
    .filter((l) => !/^nodejs_active_resources(_total \d+$|\{type="(Immediate|Timeout|ConnectWrap|FSReqCallback)"\})/.test(l))
    .sort();
  const total = all.find((l) => l.startsWith('nodejs_active_resources_total '));
  return { lines, resourcesTotal: Number(total?.split(' ')[1]) };
}

type Walks = { handles: number; resources: number };

/** How often `run` walks the handles (process._getActiveHandles) and the resources (process.getActiveResourcesInfo). */
async function countWalks(run: () => Promise<unknown>): Promise<Walks> {
  const proc = process as unknown as { _getActiveHandles: () => unknown[]; getActiveResourcesInfo: () => string[] };
  const { _getActiveHandles: handles, getActiveResourcesInfo: resources } = proc;
  const walks: Walks = { handles: 0, resources: 0 };
  proc._getActiveHandles = () => {
    walks.handles++;
    return handles.call(process);
  };
  proc.getActiveResourcesInfo = () => {
    walks.resources++;
    return resources.call(process);
  };
  try {
    await run();
  } finally {
    proc._getActiveHandles = handles;
    proc.getActiveResourcesInfo = resources;
  }
  return walks;
}

test('the cheaper process counts say what prom-client says, with 200 sockets and 20 extra files open', async (t) => {
  const server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const sockets: Socket[] = [];
  const files: number[] = [];
  t.after(() => {
    for (const s of sockets) s.destroy();
    for (const fd of files) closeSync(fd);
    server.close();
  });
  for (let k = 0; k < 200; k++) {
    sockets.push(await new Promise<Socket>((resolve, reject) => connect(port, '127.0.0.1', function (this: Socket) { resolve(this); }).on('error', reject)));
  }
  for (let k = 0; k < 20; k++) files.push(openSync('/dev/null', 'r'));
  await new Promise((r) => setTimeout(r, 50)); // the connects' requests are over

  const theirs = new Registry();
  collectDefaultMetrics({ register: theirs });
  const ours = new Registry();
  collectDefaultMetrics({ register: ours });
  const before = NAMES.map((n) => ours.getSingleMetric(n));
  cheaperProcessCounts(ours);
  NAMES.forEach((n, k) => assert.notEqual(ours.getSingleMetric(n), before[k], `${n} is replaced`));

  const { lines: expected, resourcesTotal } = await linesOf(theirs);
  assert.ok(expected.some((l) => /^nodejs_active_handles\{type="Socket"\} (\d+)$/.test(l) && Number(l.split(' ')[1]) >= 400), 'prom-client counts the sockets');
  const first = await linesOf(ours);
  assert.deepEqual(first.lines, expected);
  assert.ok(Math.abs(first.resourcesTotal - resourcesTotal) <= 5, `resources ${first.resourcesTotal} against ${resourcesTotal}`);
  assert.ok(resourcesTotal >= 400, 'the resources include the sockets');
  if (process.platform === 'linux') {
    assert.equal(openFds(), readdirSync('/proc/self/fd').length - 1, 'the count is that of the listing');
    assert.ok(expected.some((l) => l.startsWith('process_open_fds ')), 'Linux has the descriptor count');
  }
  // one walk of the handles and one of the resources a scrape, where prom-client makes two each
  const walks = await countWalks(async () => {
    await new Promise((r) => setTimeout(r, 1100)); // past what the last scrape walked
    await ours.metrics();
  });
  assert.deepEqual(walks, { handles: 1, resources: 1 });
  assert.deepEqual(await countWalks(() => theirs.metrics()), { handles: 2, resources: 2 }, 'the count itself is right');
  // a second scrape within the second reads the same walk; the names stay registered once
  assert.deepEqual((await linesOf(ours)).lines, expected);
  assert.equal(ours.getMetricsAsArray().filter((m) => NAMES.includes(m.name)).length, NAMES.length);
});
