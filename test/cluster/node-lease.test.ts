/**
 * Who holds a node id's lease (src/cluster/node-lease.ts): its value names the host and the pid,
 * and only a process of this host that no longer runs (or this very pid: a restarted container)
 * counts as dead; a lease of another host, or of an older format, is waited for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holderIsDead, leaseHolder, leaseToken } from '../../src/cluster/node-lease.js';

test('a lease names its host and pid; only a process of this host that is gone counts as dead', () => {
  const token = leaseToken(4242);
  const holder = leaseHolder(token);
  assert.ok(holder);
  assert.equal(holder.pid, 4242);
  const here = holder.host;
  const running = (pid: number): boolean => pid === 7;
  assert.equal(holderIsDead(`t ${here} 4242`, here, running, 100), true, 'gone on this host');
  assert.equal(holderIsDead(`t ${here} 7`, here, running, 100), false, 'runs on this host');
  assert.equal(holderIsDead(`t ${here} 100`, here, running, 100), true, "this process's own pid: a previous life (a restarted container)");
  assert.equal(holderIsDead('t elsewhere/pid:[1] 4242', here, running, 100), false, 'another host: not known');
  assert.equal(holderIsDead('0b7c6c5e-1111-2222-3333-444455556666', here, running, 100), false, 'an older format: not known');
  assert.equal(leaseHolder('0b7c6c5e-1111-2222-3333-444455556666'), null);
});
