/**
 * `vts serve` on PostgreSQL when its connections go silent (issue 26): a TCP proxy of the test's
 * own in front of the server stops forwarding without closing anything (test/support/tcp-proxy.ts).
 * With a short `--database-timeout` (VTS_DATABASE_TIMEOUT) the node does not stall for good: the
 * unacknowledged `h` records fail, `/ready` says 503, and once the database answers again the node
 * recovers by itself (acks, `/ready` 200) with no restart. The outage is one log line when it begins
 * and one with a count when it ends, not one line (with a stack) per record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient, type MpMessage } from '../../src/mp-client/mp-client.js';
import { vts } from '../cli/admin-helpers.js';
import { FREE_PORTS, listening, serveProcess } from '../cli/serve-process.js';
import { eventually } from '../mp/helpers.js';
import { freshSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { proxyPostgres } from '../support/tcp-proxy.js';

const skip = await needs(postgres);

test('vts serve through a black hole: h records fail without a log line each, /ready is 503, and the node recovers by itself', { skip, timeout: 90_000 }, async (t) => {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  assert.equal((await vts(['user', 'add', 'demo', '--password', '-', '--database', s.url], 'demopass\n')).code, 0);
  assert.equal((await vts(['vehicle', 'add', 'PGCAR', '--owner', 'DEMO', '--password', 'NETPASS', '--database', s.url])).code, 0);

  const { proxy, url: through } = await proxyPostgres(s.url);
  t.after(() => proxy.close());

  const serve = serveProcess([...FREE_PORTS, '--log-level', 'warn', '--log-format', 'json', '--database', through], {
    env: { VTS_DATABASE_TIMEOUT: '1' },
  });
  t.after(() => void serve.child.kill('SIGKILL'));
  // start-up opens the database through the proxy: on a busy machine it may take a while
  await eventually(() => (serve.stdout.length > 0 || serve.child.exitCode !== null ? true : undefined), 'the listening line', 60_000);
  const ports = await listening(serve);
  const ready = async (): Promise<number> => (await fetch(`http://127.0.0.1:${ports.http as number}/ready`)).status;
  const car = await MpClient.connect({ host: '127.0.0.1', port: ports.mp as number, clientType: 'C', vehicleId: 'PGCAR', scheme: 0, password: 'NETPASS' });
  t.after(() => car.close());
  const acks: string[] = [];
  car.on('message', (m: MpMessage) => void (m.code === 'h' && acks.push(m.data)));
  const send = (k: number): void => car.send('h', `${k},0,*-LOG-Trip,${k},86400,trip ${k}`);
  send(1);
  await eventually(() => (acks.includes('1') ? true : undefined), 'the ack of record 1');
  assert.equal(await ready(), 200);

  // every connection, open or new, stays silent until resume
  proxy.blackHole(true);
  for (let k = 2; k <= 6; k++) send(k);
  await eventually(() => serve.stderr.find((l) => l.includes('the database is unavailable')), 'the outage line', 30_000);
  assert.equal(await ready(), 503);
  // an app that logs in meanwhile is refused (its vehicle cannot be looked up), without an error line
  await assert.rejects(MpClient.connect({ host: '127.0.0.1', port: ports.mp as number, clientType: 'A', vehicleId: 'PGCAR', scheme: 0, password: 'NETPASS' }));

  proxy.resume();
  send(7);
  await eventually(() => (acks.includes('7') ? true : undefined), 'the ack of record 7, once the database answers', 60_000);
  await eventually(async () => ((await ready()) === 200 ? true : undefined), '/ready answering 200 again', 30_000);
  const back = await eventually(() => serve.stderr.find((l) => l.includes('the database answers again') && !l.includes('"thread"')), 'the line of its end');
  assert.ok((JSON.parse(back) as { failures: number }).failures >= 1, back);

  const lines = serve.stderr.filter((l) => l.startsWith('{'));
  // one pair of the server's store; the push delivery thread has a store (and its lines) of its own
  const server = lines.filter((l) => !l.includes('"thread":"push"'));
  assert.equal(server.filter((l) => l.includes('the database is unavailable')).length, 1, lines.join('\n'));
  assert.equal(server.filter((l) => l.includes('the database answers again')).length, 1, lines.join('\n'));
  assert.ok(lines.filter((l) => l.includes('the database is unavailable')).length <= 2, lines.join('\n'));
  assert.deepEqual(lines.filter((l) => /storing an h record failed|background write failed|login check failed/.test(l)), []);
  assert.deepEqual(lines.filter((l) => l.includes('"stack"')), [], 'no stack (nor one of the push thread)');
});
