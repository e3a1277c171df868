/**
 * A dashboard live stream while the cluster's Redis is away: the stream goes on, and its session
 * checks (one per ping) that fail because Redis is out of reach are logged at debug, not as a
 * warning at every ping of every stream (the node said once that Redis is lost). Runs its own
 * Redis, on a free port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { skipCluster, startCluster, type Node } from './harness.js';
import { freePort, redisServer } from './own-redis.js';

test('a live stream during a Redis outage goes on, its failed session checks logged at debug', { skip: skipCluster }, async (t) => {
  const port = await freePort();
  const redis = await redisServer(port);
  t.after(() => redis.kill('SIGKILL'));
  // a short web session timeout: the stream checks its (web) session every second
  const c = await startCluster(t, ['a'], { redisUrl: `redis://127.0.0.1:${port}`, extra: ['--web-session-timeout', '3', '--log-level', 'debug'] });
  const [a] = c.nodes as [Node];

  const login = await fetch(a.url('/api/session', false), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=demo&password=demopass',
  });
  assert.equal(login.status, 200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const controller = new AbortController();
  t.after(() => controller.abort());
  const res = await fetch(a.url('/api/live/CLCAR', false), { headers: { cookie }, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += value;
    }
  })();
  await eventually(() => (text.includes('event: hello') ? true : undefined), 'the stream to start');

  redis.kill('SIGKILL');
  await eventually(() => (a.logged('cluster: lost Redis: this node goes on serving its own connections and joins again when Redis returns') ? true : undefined), 'node A to notice');
  const checks = (level: number): number =>
    a.run.stderr.filter((l) => l.includes('"msg":"live stream: session check failed"') && l.includes(`"level":${level},`)).length;
  // a few pings with Redis away
  await eventually(() => (checks(20) >= 3 ? true : undefined), 'three failed session checks at debug', 15_000);
  assert.equal(checks(40), 0, 'no warning per ping');
  const pings = text.split(': ping').length - 1;
  await eventually(() => (text.split(': ping').length - 1 > pings ? true : undefined), 'the stream to go on', 5000);
});
