/**
 * Commands across the nodes of a cluster: a car on node A, callers on node B through every entry
 * point of the command service (the JSON command API, its async jobs read on A, the custom API, a
 * vehicle action, `vts exec`); each reaches the car once, its answer reaches the caller, and the
 * audit lists it once. A vehicle that is connected nowhere is refused at once (409) everywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, m } from '../mp/helpers.js';
import { spawnVts } from '../cli/spawn-helpers.js';
import { answerCommands, countsEverywhere, skipCluster, startCluster, type Node } from './harness.js';

interface AuditRow {
  caller: string;
  command: string;
  result: string;
  via: string;
}

/** `POST /api/command/CLCAR[?async=1]` on a node as the demo user. */
const command = (node: Node, text: string, query = ''): Promise<Response> =>
  fetch(node.url(`/api/command/CLCAR${query}`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command: text, type: 'shell' }),
  });

const custom = (node: Node, cmd: string): Promise<Response> =>
  fetch(node.url(`/api/ovms/cmd?fn.vehicleid=CLCAR&fn.carpass=NETPASS&fn.cmd=${encodeURIComponent(cmd)}`, false));

const exec = (node: Node, words: string[]) =>
  spawnVts(['exec', 'CLCAR', ...words, '--server', `http://127.0.0.1:${node.http}`, '--user', 'demo', '--password', '-'], { stdin: 'demopass\n' });

/** The vehicle's command audit as a node answers it (after that node committed what it holds). */
async function audit(node: Node): Promise<AuditRow[]> {
  const res = await fetch(node.url('/api/command/CLCAR'));
  assert.equal(res.status, 200);
  return ((await res.json()) as AuditRow[]).map(({ caller, command, result, via }) => ({ caller, command, result, via }));
}

const byText = (a: AuditRow, b: AuditRow): number => (`${a.via} ${a.command}` < `${b.via} ${b.command}` ? -1 : 1);

test('commands from node B reach the car on node A and answer there; each is audited once', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const car = await c.mp(a, 'C');
  const seen = answerCommands(car);
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });

  const sync = await command(b, 'stat');
  assert.equal(sync.status, 200);
  assert.deepEqual(await sync.json(), { output: 'ran stat', result: 0 });

  // a job started on B is read on A
  const started = await command(b, 'stat async', '?async=1');
  assert.equal(started.status, 202);
  const { job } = (await started.json()) as { job: string };
  const ended = await eventually(async () => {
    const res = await fetch(a.url(`/api/command/CLCAR/${job}`));
    assert.equal(res.status, 200, 'the job is known on A');
    const body = (await res.json()) as { status: string };
    return body.status === 'running' ? undefined : body;
  }, 'the job to end', 15_000);
  assert.deepEqual(ended, { job, status: 'done', output: 'ran stat async', result: 0 });

  const text = await custom(b, 'stat custom');
  assert.equal(text.status, 200);
  assert.equal(await text.text(), 'ran stat custom');

  const charge = await fetch(b.url('/api/charge/CLCAR?mode=range'), { method: 'PUT' });
  assert.equal(charge.status, 200);
  assert.deepEqual(await charge.json(), { output: '', result: 0 });

  const cli = await exec(b, ['stat', 'exec']);
  assert.deepEqual({ code: cli.code, stdout: cli.stdout, stderr: cli.stderr }, { code: 0, stdout: 'ran stat exec\n', stderr: '' });

  // the car got each command once, in order (the charge mode `range` is MP command 10 with 3)
  assert.deepEqual(
    seen.filter((msg) => msg.code === 'C'),
    [m('C', '7,stat'), m('C', '7,stat async'), m('C', '7,stat custom'), m('C', '10,3'), m('C', '7,stat exec')],
  );

  const expected: AuditRow[] = [
    { caller: 'user:demo', command: '7,stat', result: '0', via: 'api' },
    { caller: 'user:demo', command: '7,stat async', result: '0', via: 'api' },
    { caller: 'vehicle:CLCAR', command: '7,stat custom', result: '0', via: 'custom-api' },
    { caller: 'user:demo', command: '10,3', result: '0', via: 'api-v2' },
    { caller: 'user:demo', command: '7,stat exec', result: '0', via: 'api' },
  ].sort(byText);
  await eventually(async () => ((await audit(a)).length >= expected.length ? true : undefined), 'the audit of the 5 commands', 10_000);
  // each node answers after committing what it holds: a second entry of any command would be there now
  for (const node of [b, a, b]) assert.deepEqual((await audit(node)).sort(byText), expected, `the audit on ${node.id}`);
});

test('a vehicle connected nowhere is refused at once (409) on every node, also once its car left another node', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const refusedEverywhere = async (what: string): Promise<void> => {
    for (const node of c.nodes) {
      const json = await command(node, 'stat');
      assert.equal(json.status, 409, `${what}: JSON API on ${node.id}`);
      assert.equal(((await json.json()) as { error: string }).error, 'VTS_ERR_NOT_CONNECTED');
      assert.equal((await custom(node, 'stat')).status, 409, `${what}: custom API on ${node.id}`);
      assert.equal((await fetch(node.url('/api/charge/CLCAR'), { method: 'DELETE' })).status, 409, `${what}: vehicle action on ${node.id}`);
      const cli = await exec(node, ['stat']);
      assert.equal(cli.code, 1, `${what}: vts exec on ${node.id}`);
      assert.match(cli.stderr, /^vts: .*not connected/i);
    }
  };
  await refusedEverywhere('never connected');

  const car = await c.mp(a, 'C');
  const seen = answerCommands(car);
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
  assert.equal((await command(b, 'stat')).status, 200, 'reached while the car is on A');
  assert.deepEqual(seen.filter((msg) => msg.code === 'C'), [m('C', '7,stat')]);
  await car.close();
  await countsEverywhere(c, { net: 0, apps: 0, batches: 0 });
  await refusedEverywhere('the car left A');
  assert.deepEqual(seen.filter((msg) => msg.code === 'C'), [m('C', '7,stat')], 'nothing more reached the car');
});
