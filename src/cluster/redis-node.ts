/**
 * A node's membership of the cluster over Redis, under src/cluster/redis-cluster.ts (which acts on
 * the messages and is the hub's Cluster): its two connections, its lease, joining and losing
 * Redis, the presence parts and car claims (src/cluster/presence-sync.ts, car-claims.ts) and their
 * periodic repair, and sending messages (see redis-cluster.ts for the whole picture).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isVtsError, VtsError } from '../errors.js';
import type { ClusterEvents } from '../hub/cluster/cluster.js';
import { notDelivered } from '../hub/commands/command-service.js';
import { CarClaims } from './car-claims.js';
import { PendingRequests } from './pending-requests.js';
import { PresenceSync } from './presence-sync.js';
import { BURY, HEARTBEAT, RELEASE_LEASE } from './scripts.js';
import { checkSharedDatabase } from './shared-database.js';
import { RedisGroups } from './redis-groups.js';
import { Roles } from './roles.js';
import { encode, parseMessage, type WireMessage } from './wire.js';
import { connectRedis, DEFAULT_REDIS_TIMEOUT_MS, redisTarget, watchConnection } from './redis-connect.js';
import { leaseToken, takeLease } from './node-lease.js';

export interface RedisNodeOptions {
  url: string;
  nodeId: string;
  /** Prefix of every key and channel (`--cluster-prefix`), so that clusters may share a Redis. */
  prefix: string;
  log: Logger;
  /** Lease renewal and death check period (ms). Default 2000. */
  heartbeatMs?: number;
  /** A node whose lease is this old is dead (ms). Default 10000: noticed within 12 s. */
  deadAfterMs?: number;
  /** Longest wait for another node's replay barrier (ms). Default 3000. */
  syncTimeoutMs?: number;
  /** Period of the presence repair and the renewal of car claims (ms). Default 30000. */
  repairMs?: number;
  /**
   * A Redis command, or a connection not ready yet, that takes longer fails; a connection that
   * does not answer a PING (sent every heartbeat) that long is closed and made again (ms). Default 4000.
   */
  timeoutMs?: number;
  /**
   * The identity of this node's database (Store.databaseId): a node whose database is not the one
   * the running nodes share is refused.
   */
  databaseId?: string;
}

/** The `/ready` cluster check while Redis is out of reach (stable: monitors may match it). */
export const CLUSTER_DEGRADED = 'degraded: not connected to the cluster (Redis): serving its own connections alone';

export abstract class RedisNode {
  readonly nodeId: string;
  protected readonly log: Logger;
  protected readonly k: (name: string) => string;
  protected cmd: Redis | null = null;
  private sub: Redis | null = null;
  protected events: ClusterEvents | null = null;
  protected readonly presence: PresenceSync;
  protected readonly claims: CarClaims;
  protected readonly requests: PendingRequests;
  /** Nodes found gone: their late presence messages are ignored until they join again. */
  protected readonly buried = new Set<string>();
  private readonly token = leaseToken();
  private readonly heartbeatMs: number;
  private readonly timeoutMs: number;
  /** Stops the watches of the two connections. */
  private readonly unwatch: (() => void)[] = [];
  private readonly deadAfterMs: number;
  protected readonly syncTimeoutMs: number;
  /** Joined and connected: messages flow. */
  protected joined = false;
  /** Messages that arrived while the other nodes' state is being loaded. */
  private buffered: WireMessage[] | null = null;
  /** Presence messages that arrived while the other nodes' parts are read again. */
  private heldPresence: WireMessage[] | null = null;
  /** Counts joins and losses: a join or repair that saw one meanwhile is not trusted. */
  private epoch = 0;
  private timer: NodeJS.Timeout | null = null;
  private repairTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private joining: Promise<void> | null = null;
  /** The other running nodes found by the last join. */
  private othersAtJoin = 0;
  /** Roles this node runs for (`lead`). */
  protected readonly roles: Roles;
  protected readonly groups: RedisGroups;

  /**
   * For `/ready`: joined (connected to Redis, the other nodes' state loaded), or degraded: the
   * node serves its own connections alone until Redis answers again.
   */
  health(): string {
    if (this.stopping) return 'failed: leaving the cluster';
    return this.joined ? 'ok' : CLUSTER_DEGRADED;
  }

  constructor(private readonly opts: RedisNodeOptions) {
    this.nodeId = opts.nodeId;
    this.log = opts.log.child({ node: opts.nodeId });
    const prefix = opts.prefix.endsWith(':') ? opts.prefix : opts.prefix + ':';
    this.k = (name) => prefix + name;
    this.requests = new PendingRequests(opts.nodeId);
    this.heartbeatMs = opts.heartbeatMs ?? 2000;
    this.deadAfterMs = opts.deadAfterMs ?? 10_000;
    this.syncTimeoutMs = opts.syncTimeoutMs ?? 3000;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.roles = new Roles(this.k, this.token, this.deadAfterMs, this.log);
    this.groups = new RedisGroups(this.k, this.nodeId);
    this.claims = new CarClaims(this.k, this.nodeId, this.log, {
      taken: (node, v, claim) => this.publish(`n:${node}`, { t: 'taken', v, claim }),
      changed: (v) => this.presence.publish(this.joined ? this.cmd : null, v),
      carTaken: (v, claim) => this.events?.carTaken(v, claim),
      reclaimed: (v, from, to) => this.events?.carReclaimed(v, from, to),
    });
    this.presence = new PresenceSync(this.k, this.nodeId, this.log, (v) => this.claims.of(v));
  }

  /** The command connection (for the Redis-backed stores of the cluster: sessions, jobs). */
  get redis(): Redis {
    if (!this.cmd) throw new VtsError('VTS_ERR_CLUSTER', 'the cluster is not started');
    return this.cmd;
  }

  /**
   * Runs a Redis operation of the cluster's stores: while Redis is out of reach it fails with
   * VTS_ERR_CLUSTER (HTTP answers 503), not with the client's own error.
   */
  async shared<T>(op: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await op(this.redis);
    } catch (err) {
      if (isVtsError(err)) throw err;
      throw new VtsError('VTS_ERR_CLUSTER', `Redis: ${errText(err)}`, { cause: err });
    }
  }

  /** The key of a name under this cluster's prefix. */
  key(name: string): string {
    return this.k(name);
  }

  async start(events: ClusterEvents): Promise<void> {
    this.events = events;
    // named in CLIENT LIST by role, cluster and node: `vts-messages@vts:node-a`
    const name = (role: string): string => `vts-${role}@${this.k(this.nodeId)}`;
    const cmd = (this.cmd = await connectRedis(this.opts.url, this.log, 'commands', name('commands'), this.timeoutMs));
    let sub: Redis;
    try {
      sub = this.sub = await connectRedis(this.opts.url, this.log, 'messages', name('messages'), this.timeoutMs);
    } catch (err) {
      cmd.disconnect();
      throw err;
    }
    try {
      // the node id is a lease: a second live node of the same name is refused
      const lease = { key: this.k(`alive:${this.nodeId}`), token: this.token, ttlMs: this.deadAfterMs, renewMs: this.heartbeatMs, log: this.log };
      if (!(await takeLease(cmd, lease))) {
        throw new VtsError('VTS_ERR_CLUSTER', `the node id ${this.nodeId} is in use by a running node of this cluster: give each node its own --node-id`, { whole: true });
      }
    } catch (err) {
      cmd.disconnect();
      sub.disconnect();
      throw err;
    }
    try {
      if (this.opts.databaseId !== undefined) await checkSharedDatabase(cmd, this.k, this.nodeId, this.opts.databaseId, this.log);
      sub.on('message', (channel: string, payload: string) => this.onPayload(payload));
      await this.join();
    } catch (err) {
      // refused, or Redis failed while joining: nothing of this node stays behind
      await RELEASE_LEASE.run(cmd, [this.k(`alive:${this.nodeId}`)], [this.token]).catch(() => undefined);
      cmd.disconnect();
      sub.disconnect();
      throw err;
    }
    // either connection lost: messages may have been missed; both back: join again
    for (const [conn, role] of [
      [cmd, 'commands'],
      [sub, 'messages'],
    ] as const) {
      conn.on('close', () => this.lost());
      conn.on('ready', () => void this.rejoin());
      // a connection that hangs closes nothing by itself: it is closed (then lost, made again)
      this.unwatch.push(watchConnection(conn, this.heartbeatMs, this.timeoutMs, (why) => this.hung(role, why)));
    }
    if (cmd.status !== 'ready' || sub.status !== 'ready') this.lost();
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
    this.timer.unref();
    this.repairTimer = setInterval(() => void this.repair(), this.opts.repairMs ?? 30_000);
    this.repairTimer.unref();
    this.log.info({ redis: redisTarget(this.opts.url), nodes: this.othersAtJoin + 1 }, 'joined the cluster');
  }

  /** A connection to Redis that does not answer: said (once per silence), then closed by its watch. */
  private hung(role: string, why: string): void {
    if (this.stopping) return;
    const line = { redis: redisTarget(this.opts.url), connection: role, why };
    // joined until now: news; while it reconnects to a Redis still silent: not news again
    if (this.joined) this.log.warn(line, 'cluster: Redis does not answer: closing the connection and connecting again');
    else this.log.debug(line, 'cluster: Redis still does not answer: connecting again');
  }

  /**
   * Subscribes, claims this node's cars again, writes its part, learns the others' (messages
   * meanwhile wait), then lets messages flow and publishes what changed meanwhile.
   */
  private async join(): Promise<void> {
    const cmd = this.redis;
    const epoch = ++this.epoch;
    this.buffered = [];
    try {
      // subscribed (again) before anything is read: a change published after the reads is heard
      await this.sub!.subscribe(this.k('all'), this.k(`n:${this.nodeId}`));
      await cmd.set(this.k(`alive:${this.nodeId}`), this.token, 'PX', this.deadAfterMs);
      await cmd.sadd(this.k('nodes'), this.nodeId);
      if (this.opts.databaseId !== undefined) await cmd.set(this.k('database'), this.opts.databaseId, 'NX');
      await this.claims.reclaimAll(cmd);
      await this.presence.writeAll(cmd.multi()).exec();
      const replica = this.presence.replica;
      const changed = new Set(replica.clear());
      let others = 0;
      for (const node of await cmd.smembers(this.k('nodes'))) {
        if (node === this.nodeId) continue;
        if (!(await cmd.exists(this.k(`alive:${node}`)))) {
          await this.bury(node);
          continue;
        }
        others++;
        this.buried.delete(node);
        for (const [v, p] of await this.presence.read(cmd, node)) if (replica.set(node, v, p)) changed.add(v);
      }
      if (epoch !== this.epoch) throw new Error('Redis was lost again while joining');
      this.joined = true;
      this.othersAtJoin = others;
      const waiting = this.buffered;
      this.buffered = null;
      for (const m of waiting) this.handle(m);
      this.presence.flushDirty(cmd);
      for (const v of changed) this.events?.presenceChanged(v);
    } finally {
      this.buffered = null;
    }
  }

  /** Redis is back (or this node's lease had run out): join again. */
  private rejoin(): Promise<void> {
    if (this.stopping || this.joined || !this.cmd || !this.sub) return Promise.resolve();
    // the other connection's 'ready' (or the next heartbeat) tries again
    if (this.cmd.status !== 'ready' || this.sub.status !== 'ready') return Promise.resolve();
    this.joining ??= this.join()
      .then(() => this.log.warn('cluster: Redis is back: joined the cluster again'))
      // the loss was said once (lost()); each failed try while Redis is away is not news
      .catch((err: unknown) => this.log.debug({ err: errText(err) }, 'cluster: joining again failed (tried again on the next heartbeat)'))
      .finally(() => (this.joining = null));
    return this.joining;
  }

  /** Redis is lost: this node serves its own connections alone until it returns. */
  private lost(): void {
    this.epoch++;
    if (this.stopping || !this.joined) return;
    this.joined = false;
    this.log.warn({ redis: redisTarget(this.opts.url) }, 'cluster: lost Redis: this node goes on serving its own connections and joins again when Redis returns');
    this.requests.failAll(undefined, 'the cluster (Redis) is out of reach');
    for (const v of this.presence.replica.clear()) this.events?.presenceChanged(v);
    // another node takes the roles over once their leases run out
    this.roles.stepDown();
  }

  /** The heartbeat: renew this node's lease, and bury the nodes whose lease ran out. */
  private async tick(): Promise<void> {
    if (this.stopping || !this.cmd) return;
    if (!this.joined) return void this.rejoin();
    try {
      const lease = await HEARTBEAT.run(this.cmd, [this.k(`alive:${this.nodeId}`)], [this.token, this.deadAfterMs]);
      if (lease === 2) {
        this.log.warn('cluster: this node was out of reach long enough to count as gone: joining again');
        this.joined = false;
        return void this.rejoin();
      }
      if (lease === 0) this.log.error({ node: this.nodeId }, 'cluster: another process holds this node id: give each node its own --node-id');
      await this.roles.renew(this.cmd);
      const nodes = (await this.cmd.smembers(this.k('nodes'))).filter((n) => n !== this.nodeId);
      if (nodes.length === 0) return;
      const alive = await Promise.all(nodes.map((n) => this.cmd!.exists(this.k(`alive:${n}`))));
      for (let i = 0; i < nodes.length; i++) if (!alive[i]) await this.bury(nodes[i]!);
    } catch (err) {
      // while joined it is news: the lease runs out unless a heartbeat passes (a connection that
      // hangs is closed by its watch)
      if (this.joined) this.log.warn({ err: errText(err) }, 'cluster: heartbeat failed (tried again on the next one)');
      else this.log.debug({ err: errText(err) }, 'cluster: heartbeat failed');
    }
  }

  /**
   * Every `repairMs` while joined: renews this node's car claims (and makes those Redis lost),
   * writes again what differs in its hash, and reads the others' parts again (their presence
   * messages wait meanwhile): a message lost on the way is put right here at the latest.
   */
  private async repair(): Promise<void> {
    const cmd = this.cmd;
    if (this.stopping || !this.joined || !cmd || this.heldPresence) return;
    const epoch = this.epoch;
    try {
      await this.claims.reclaimAll(cmd);
      const own = await this.presence.repairOwn(cmd);
      if (own > 0) this.log.warn({ vehicles: own }, "cluster: this node's presence in Redis was not what it holds: written again");
      this.heldPresence = [];
      const nodes = (await cmd.smembers(this.k('nodes'))).filter((n) => n !== this.nodeId && !this.buried.has(n));
      const changed = await this.presence.reloadOthers(cmd, nodes);
      if (epoch !== this.epoch || !this.joined) return; // joining again reads everything anyway
      for (const m of this.heldPresence) this.handle(m);
      if (changed.length > 0) this.log.warn({ vehicles: changed.length }, "cluster: the copy of the other nodes' presence had drifted: put right");
      for (const v of changed) this.events?.presenceChanged(v);
    } catch (err) {
      this.log.debug({ err: errText(err) }, 'cluster: the presence repair failed (tried again later)');
    } finally {
      this.heldPresence = null;
    }
  }

  /** Takes a dead node out: once in Redis (by whoever comes first), and here. */
  private async bury(node: string): Promise<void> {
    const cmd = this.redis;
    if ((await BURY.run(cmd, [this.k('nodes'), this.k(`p:${node}`)], [node])) === 1) {
      this.log.warn({ gone: node }, 'cluster: a node stopped answering: its cars and apps are gone from the counts');
      await this.groups.dropNode(cmd, node);
      await cmd.publish(this.k('all'), encode({ t: 'gone', n: node }));
    }
    this.forget(node);
  }

  protected forget(node: string): void {
    this.buried.add(node);
    this.requests.failAll(node, `node ${node} left the cluster`);
    for (const v of this.presence.replica.dropNode(node)) this.events?.presenceChanged(v);
  }

  /**
   * Nobody listens for a node (PUBLISH to it reached no one): it died, or lost Redis and joins
   * again (then its `reset` brings it back). Forgotten here until then; its lease says the rest.
   */
  private unreachable(node: string): void {
    if (this.buried.has(node) || !this.joined) return;
    this.log.info({ node }, 'cluster: a node does not listen any more: forgotten here until it joins again');
    this.forget(node);
  }

  // --- messages ---

  private onPayload(payload: string): void {
    const m = parseMessage(payload);
    if (!m) {
      this.log.debug('cluster: a message that is not understood: dropped');
      return;
    }
    if (this.buffered) this.buffered.push(m);
    else if (this.heldPresence && (m.t === 'p' || m.t === 'reset' || m.t === 'gone')) this.heldPresence.push(m);
    else this.handle(m);
  }

  /** Publishes on a channel (`all`, `n:<node>`); resolves to the number of nodes that heard it (null: Redis failed). */
  private publish(channel: string, m: WireMessage): Promise<number | null> {
    if (!this.cmd) return Promise.resolve(null);
    return this.cmd.publish(this.k(channel), encode(m)).catch((err: unknown) => {
      this.log.debug({ err: errText(err), channel }, 'cluster: sending failed');
      return null;
    });
  }

  protected send(node: string, m: WireMessage): void {
    if (this.joined) void this.publish(`n:${node}`, m);
  }

  /** Sends request `id` to a node: when no one heard it, the request fails at once, not delivered. */
  protected request(node: string, id: string, m: WireMessage): void {
    const failed = (why: string): void => this.requests.reject(id, notDelivered(new VtsError('VTS_ERR_NOT_CONNECTED', why)));
    if (!this.joined) return failed('the cluster (Redis) is out of reach');
    void this.publish(`n:${node}`, m).then((heard) => {
      // Redis may have passed it on before it failed: not routed again
      if (heard === null) return this.requests.reject(id, new VtsError('VTS_ERR_NOT_CONNECTED', 'the cluster (Redis) is out of reach'));
      if (heard > 0) return;
      failed(`node ${node} is not in the cluster`);
      this.unreachable(node);
    });
  }

  protected sendAll(m: WireMessage): void {
    if (this.joined) void this.publish('all', m);
  }

  /** Acts on a message from another node. */
  protected abstract handle(m: WireMessage): void;

  /** Whether this node is in the cluster now (false while Redis is out of reach). */
  get connected(): boolean {
    return this.joined;
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    if (this.repairTimer) clearInterval(this.repairTimer);
    for (const stop of this.unwatch) stop();
    this.requests.failAll(undefined, 'this node is shutting down');
    const cmd = this.cmd;
    await this.roles.leave(cmd && this.joined ? cmd : null);
    if (cmd && this.joined) {
      try {
        await cmd
          .multi()
          .srem(this.k('nodes'), this.nodeId)
          .del(this.k(`p:${this.nodeId}`), this.k(`alive:${this.nodeId}`))
          .publish(this.k('all'), encode({ t: 'gone', n: this.nodeId }))
          .exec();
        await this.groups.dropNode(cmd, this.nodeId);
      } catch (err) {
        this.log.warn({ err: errText(err) }, 'cluster: leaving cleanly failed (the others notice by the lease)');
      }
    }
    this.joined = false;
    this.sub?.disconnect();
    cmd?.disconnect();
  }
}

export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
