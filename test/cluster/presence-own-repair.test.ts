/**
 * A node's repair of its own presence hash (src/cluster/presence-sync.ts `repairOwn`) on a real
 * Redis: vehicles written while its read is on the way (a login storm writes thousands) are not
 * taken for differences, so no "not what it holds" warning comes of a storm; an entry that really
 * is wrong (removed behind the node's back) is found and written again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { PresenceSync } from '../../src/cluster/presence-sync.js';
import { REDIS_URL, skipCluster } from './harness.js';

const CAR = { car: true, v3: false, apps: 0, batches: 0 };

test('repairOwn: writes during its read are not differences; a removed entry is', { skip: skipCluster }, async (t) => {
  const prefix = `vtstest${randomBytes(4).toString('hex')}`;
  const redis = new Redis(REDIS_URL);
  t.after(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const sync = new PresenceSync((n) => `${prefix}:${n}`, 'a', pino({ level: 'silent' }), () => 1);
  for (let k = 0; k < 50; k++) sync.set(redis, `OLD${k}`, CAR);
  await redis.ping(); // the writes before are done

  // the read is sent first; 500 logins are written while it is on its way
  const repaired = sync.repairOwn(redis);
  for (let k = 0; k < 500; k++) sync.set(redis, `NEW${k}`, CAR);
  assert.equal(await repaired, 0, 'nothing to repair');
  assert.equal(await redis.hlen(`${prefix}:p:a`), 550);

  // an entry lost behind the node's back is found and written again
  await redis.hdel(`${prefix}:p:a`, 'OLD7');
  assert.equal(await sync.repairOwn(redis), 1);
  await redis.ping();
  assert.deepEqual(JSON.parse((await redis.hget(`${prefix}:p:a`, 'OLD7'))!), { ...CAR, claim: 1 });
});
