/**
 * The Lua scripts the cluster runs in Redis, where a read and a write must be one step (Redis runs
 * a script whole, with nothing in between). Each is sent once and then called by its SHA-1.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Script {
  run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

function script(lua: string): Script {
  const sha = createHash('sha1').update(lua).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
        return redis.eval(lua, keys.length, ...keys, ...args);
      }
    },
  };
}

/**
 * KEYS: alive key. ARGV: token, ttl ms. Keeps this node's lease: 1 when it was ours, 2 when it had
 * expired (the others may have found this node dead: it must join again), 0 when another process
 * holds it.
 */
export const HEARTBEAT = script(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0`);

/**
 * KEYS: nodes set, the dead node's presence hash. ARGV: node. Takes a dead node out of the cluster
 * once: 1 for the caller that did it, 0 when another node did.
 */
export const BURY = script(`
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then redis.call('DEL', KEYS[2]) return 1 end
return 0`);

/**
 * KEYS: the vehicle's car claim, the claim counter. ARGV: node, login time (ms), expiry (ms).
 * Records that the car logged in on this node (`<node> <n> <login time>`, renewed while held);
 * returns the claim it replaced ('<node> <n> …', or false) and this claim's number.
 */
export const CLAIM_CAR = script(`
local old = redis.call('GET', KEYS[1])
local n = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. n .. ' ' .. ARGV[2], 'PX', ARGV[3])
return {old or false, n}`);

/**
 * KEYS: the vehicle's car claim, the claim counter. ARGV: node, this node's claim (0: made while
 * Redis was away), its login time (ms), expiry (ms). Keeps (and renews) this node's claim of a car
 * it holds, or makes it again when Redis lost it or never had it. Returns {n, replaced}: the claim
 * now (-1: another node's claim is newer, this node's car is taken) and the claim it replaced.
 */
export const RECLAIM_CAR = script(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local node, n, at = string.match(cur, '^(%S+) (%d+) ?(%d*)$')
  if node == ARGV[1] and n == ARGV[2] then
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
    return {tonumber(n), false}
  end
  if node and node ~= ARGV[1] and (tonumber(ARGV[2]) > 0 or (at ~= '' and tonumber(at) >= tonumber(ARGV[3]))) then
    return {-1, cur}
  end
end
local n = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. n .. ' ' .. ARGV[3], 'PX', ARGV[4])
return {n, cur or false}`);

/** KEYS: the vehicle's car claim. ARGV: node, claim. Frees the claim if it is still this one. */
export const RELEASE_CAR = script(`
local cur = redis.call('GET', KEYS[1])
if cur and string.match(cur, '^(%S+ %d+)') == ARGV[1] .. ' ' .. ARGV[2] then redis.call('DEL', KEYS[1]) end
return 0`);

/** KEYS: table hash. ARGV: key, owner. Null when the key is now the owner's, else who holds it. */
export const CLAIM = script(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and cur ~= ARGV[2] then return cur end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return false`);

/** KEYS: table hash. ARGV: key, owner. Frees the key if the owner holds it. */
export const RELEASE = script(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`);

/**
 * KEYS: the last-use sorted sets of API sessions and of web sessions, the session. ARGV: id, now
 * (ms), the API sessions' timeout, the web sessions' (ms). The session's JSON, its use recorded in
 * the set it is in; false when it is gone or has been idle longer than its kind's timeout.
 */
export const USE_SESSION = script(`
local seen, limit = KEYS[1], ARGV[3]
local t = redis.call('ZSCORE', seen, ARGV[1])
if not t then
  seen, limit = KEYS[2], ARGV[4]
  t = redis.call('ZSCORE', seen, ARGV[1])
end
if not t or tonumber(ARGV[2]) - tonumber(t) > tonumber(limit) then return false end
redis.call('ZADD', seen, ARGV[2], ARGV[1])
return redis.call('GET', KEYS[3])`);

/** KEYS: a lease. ARGV: token. Gives the lease up if this node holds it. */
export const RELEASE_LEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`);

/** KEYS: a lease. ARGV: the value found, the new token, ttl ms. Takes the lease over if it still holds that value: 1, else 0. */
export const TAKE_OVER_LEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0`);

/**
 * KEYS: the cluster's database key. ARGV: this node's database id. 1 when the database is the
 * cluster's (recorded now if the cluster had none), else the id the cluster has.
 */
export const SAME_DATABASE = script(`
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return cur end
redis.call('SET', KEYS[1], ARGV[1])
return 1`);
