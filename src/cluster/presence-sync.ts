/**
 * Presence in Redis: each node writes what it holds of each vehicle into its hash `p:<node>` and
 * publishes it (`p`); every node keeps a copy of the others' parts (PresenceReplica), loaded when it
 * joins and kept by their messages.
 *
 * Nothing here decides when: src/cluster/redis-cluster.ts writes this node's whole part and loads
 * the others' when it joins, publishes each change while it is joined (changes while it is not, or
 * while it joins, are written once it has joined), and calls `repairOwn` and `reloadOthers` now
 * and then, which put right any difference a lost message left (the copy of another node's part,
 * or this node's hash).
 */
import type { ChainableCommander, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { NO_PRESENCE, type NodePresence } from '../hub/cluster/cluster.js';
import { PresenceReplica } from './presence-replica.js';
import { parseJson } from './redis-groups.js';
import { encode } from './wire.js';

const isEmpty = (p: NodePresence): boolean => !p.car && !p.v3 && p.apps === 0 && p.batches === 0;

export function parsePresence(text: string): NodePresence | null {
  const p = parseJson(text) as Partial<NodePresence> | null;
  if (!p || typeof p.car !== 'boolean' || typeof p.v3 !== 'boolean' || typeof p.apps !== 'number' || typeof p.batches !== 'number') return null;
  return { car: p.car, v3: p.v3, apps: p.apps, batches: p.batches, ...(typeof p.claim === 'number' ? { claim: p.claim } : {}) };
}

const same = (a: NodePresence, b: NodePresence | null): boolean =>
  b !== null && a.car === b.car && a.v3 === b.v3 && a.apps === b.apps && a.batches === b.batches && a.claim === b.claim;

export class PresenceSync {
  readonly replica = new PresenceReplica();
  /** What this node holds, by vehicle (as the hub announced it). */
  private readonly mine = new Map<string, NodePresence>();
  /** Vehicles whose part changed while this node was not joined: written once it is. */
  private readonly dirty = new Set<string>();
  /** While `repairOwn` reads the hash: the vehicles written meanwhile (their writes follow the read; not judged by it). */
  private writtenDuringRead: Set<string> | null = null;

  constructor(
    private readonly k: (name: string) => string,
    private readonly nodeId: string,
    private readonly log: Logger,
    /** The claim of this node's car of a vehicle (src/cluster/car-claims.ts). */
    private readonly claimOf: (vehicleId: string) => number | undefined,
  ) {}

  /** This node's part of the vehicle as it is published: with its car's claim. */
  part(vehicleId: string): NodePresence {
    const p = this.mine.get(vehicleId);
    if (!p) return NO_PRESENCE;
    const claim = p.car ? this.claimOf(vehicleId) : undefined;
    return claim === undefined ? p : { ...p, claim };
  }

  /** The hub's new part of the vehicle: published now (`redis`), or once this node has joined (null). */
  set(redis: Redis | null, vehicleId: string, presence: NodePresence): void {
    if (isEmpty(presence)) this.mine.delete(vehicleId);
    else this.mine.set(vehicleId, { car: presence.car, v3: presence.v3, apps: presence.apps, batches: presence.batches });
    this.publish(redis, vehicleId);
  }

  /** Writes and publishes this node's part of the vehicle (null: later, once joined). */
  publish(redis: Redis | null, vehicleId: string): void {
    if (!redis) {
      this.dirty.add(vehicleId);
      return;
    }
    this.writtenDuringRead?.add(vehicleId);
    const p = this.part(vehicleId);
    const key = this.k(`p:${this.nodeId}`);
    const write = isEmpty(p) ? redis.hdel(key, vehicleId) : redis.hset(key, vehicleId, JSON.stringify(p));
    write.catch((err: unknown) => this.log.debug({ err: (err as Error).message }, 'cluster: writing presence failed'));
    redis.publish(this.k('all'), encode({ t: 'p', n: this.nodeId, v: vehicleId, p })).catch(() => undefined);
  }

  /**
   * Joining: this node's whole part, written anew and published after a `reset`, in one
   * transaction. What changes after this call is written by `flushDirty`.
   */
  writeAll(write: ChainableCommander): ChainableCommander {
    this.dirty.clear();
    const key = this.k(`p:${this.nodeId}`);
    write.del(key);
    for (const v of this.mine.keys()) write.hset(key, v, JSON.stringify(this.part(v)));
    write.publish(this.k('all'), encode({ t: 'reset', n: this.nodeId }));
    for (const v of this.mine.keys()) write.publish(this.k('all'), encode({ t: 'p', n: this.nodeId, v, p: this.part(v) }));
    return write;
  }

  /** Joined: publishes what changed while joining (or while Redis was away). */
  flushDirty(redis: Redis): void {
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const v of dirty) this.publish(redis, v);
  }

  /** A node's part as Redis has it. */
  async read(redis: Redis, node: string): Promise<Map<string, NodePresence>> {
    const parts = new Map<string, NodePresence>();
    for (const [v, text] of Object.entries(await redis.hgetall(this.k(`p:${node}`)))) {
      const p = parsePresence(text);
      if (p) parts.set(v, p);
    }
    return parts;
  }

  /**
   * Reads the given nodes' parts again and sets the copy to them (the caller holds the presence
   * messages that arrive meanwhile, and applies them after); forgets the nodes not among them.
   * Returns the vehicles whose copy changed.
   */
  async reloadOthers(redis: Redis, nodes: readonly string[]): Promise<string[]> {
    const read = await Promise.all(nodes.map((n) => this.read(redis, n)));
    const changed = new Set<string>();
    for (const node of this.replica.nodes()) if (!nodes.includes(node)) for (const v of this.replica.dropNode(node)) changed.add(v);
    nodes.forEach((node, i) => {
      for (const v of this.replica.replaceNode(node, read[i]!)) changed.add(v);
    });
    return [...changed];
  }

  /** Writes again (and publishes) every entry of this node's hash that differs from what it holds. */
  async repairOwn(redis: Redis): Promise<number> {
    // a vehicle written while the read is on its way (a login storm writes thousands) differs
    // from what the read shows only because its write comes after it: not a difference to repair
    const written = (this.writtenDuringRead = new Set());
    let stored: Map<string, NodePresence>;
    try {
      stored = await this.read(redis, this.nodeId);
    } finally {
      this.writtenDuringRead = null;
    }
    const wrong = new Set<string>();
    for (const [v, p] of stored) if (!written.has(v) && !same(p, this.mine.has(v) ? this.part(v) : null)) wrong.add(v);
    for (const v of this.mine.keys()) if (!stored.has(v) && !written.has(v)) wrong.add(v);
    for (const v of wrong) this.publish(redis, v);
    return wrong.size;
  }
}
