/**
 * The login throttle and the rate limit of a cluster: each node keeps its own counts and tells the
 * others what they must count too (a wrong secret, a newly trusted pair, requests per address), so
 * a guesser spread over nodes meets one budget. Two nodes joined by an in-memory broadcast.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginGuard } from '../../src/auth/login-guard.js';
import { loginLimits } from '../../src/core/login-throttle.js';
import { RateLimiter } from '../../src/core/rate-limit.js';
import { SoloCluster, type Cluster } from '../../src/hub/cluster/cluster.js';
import { shareLimits } from '../../src/hub/cluster/shared-limits.js';

/** Two nodes' clusters: what one broadcasts, the other hears (and a body that is not understood is dropped). */
function pair(): [Cluster, Cluster] {
  const handlers = [new Map<string, (body: unknown, from: string) => void>(), new Map<string, (body: unknown, from: string) => void>()];
  const make = (me: 0 | 1): Cluster =>
    Object.assign(new SoloCluster(`n${me}`), {
      clustered: true,
      broadcast: (topic: string, body: unknown) => handlers[1 - me]!.get(topic)?.(JSON.parse(JSON.stringify(body)), `n${me}`),
      onBroadcast: (topic: string, h: (body: unknown, from: string) => void) => void handlers[me]!.set(topic, h),
    });
  return [make(0), make(1)];
}

const limits = loginLimits({ pair: { burst: 3, perMinute: 1 } });
const wrong = async () => null;
const right = async () => 'ok';

test('wrong secrets on one node use up the budget on the other; a trusted pair is trusted on both', async () => {
  const [ca, cb] = pair();
  const now = () => 1_000_000;
  const a = new LoginGuard(limits, now);
  const b = new LoginGuard(limits, now);
  const stops = [shareLimits(ca, a, new RateLimiter(), () => 1000), shareLimits(cb, b, new RateLimiter(), () => 1000)];
  for (let k = 0; k < 3; k++) assert.equal((await a.attempt('203.0.113.5', 'user:demo', wrong)).ok, false);
  const refused = await b.attempt('203.0.113.5', 'user:demo', right);
  assert.equal(!refused.ok && refused.throttled, true, 'node B counts the failures of node A');
  // a right secret from another address makes that pair trusted on both nodes
  assert.equal((await b.attempt('198.51.100.1', 'user:demo', right)).ok, true);
  assert.equal(a.throttle.isTrusted('198.51.100.1', 'user:demo', now()), true);
  stops.forEach((stop) => stop());
});

test('requests on one node count against the address on the other (sent every flush)', async (t) => {
  const [ca, cb] = pair();
  const options = { burst: 5, perMinute: 0, max: 5, expireSeconds: 300, delaySeconds: 1 };
  const la = new RateLimiter(options);
  const lb = new RateLimiter(options);
  const stops = [shareLimits(ca, new LoginGuard(limits, Date.now), la, () => 1000, 10), shareLimits(cb, new LoginGuard(limits, Date.now), lb, () => 1000, 10)];
  t.after(() => stops.forEach((stop) => stop()));
  for (let k = 0; k < 4; k++) assert.equal(la.hit('203.0.113.9', 1000), true);
  // B hears within a flush
  for (let k = 0; k < 100 && lb.size === 0; k++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(lb.hit('203.0.113.9', 1000), false, "B's quota is what is left of the address's quota");
  assert.equal(lb.hit('192.0.2.1', 1000), true, 'another address is not touched');
});
