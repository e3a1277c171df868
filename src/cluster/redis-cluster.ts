/**
 * The cluster over Redis (`--cluster redis://…`): many `vts serve` nodes share one database and
 * one Redis, which holds only what is short-lived or can be rebuilt from the nodes' own
 * connections. Like Traccar's broadcast service, the database stays the source of truth.
 *
 * - Membership: each node holds a lease `alive:<node>` that it renews every `heartbeatMs`; a node
 *   whose lease ran out (`deadAfterMs`, kill -9, a lost network) is taken out of `nodes` by the
 *   first node to notice, which tells the others (`gone`). A node that finds its own lease gone
 *   (Redis lost it, or the others buried it) joins again.
 * - Presence: each node writes what it holds of each vehicle into its hash `p:<node>` and publishes
 *   it (`p`); every node keeps a copy of the others' parts (PresenceReplica), loaded at join.
 * - Messages: to one node on `n:<node>`, to all on `all` (src/cluster/wire.ts).
 * - Losing Redis: the node goes on serving its own connections as if alone (what the others held
 *   is forgotten, requests to them fail at once), logs it once, and joins again when Redis returns.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isVtsError, VtsError } from '../errors.js';
import type { CommandResult, JobRequest } from '../hub/command-service.js';
import { jobToWire, relayFailure, relayGuardMs, runRelayed } from './command-relay.js';
import { NO_PRESENCE, type Cluster, type ClusterEvents, type NodePresence, type RemotePresence, type VehicleOutput } from '../hub/cluster.js';
import { PendingRequests } from './pending-requests.js';
import { PresenceReplica } from './presence-replica.js';
import { BURY, CLAIM, CLAIM_CAR, HEARTBEAT, RELEASE } from './scripts.js';
import { parseJson, RedisGroups } from './redis-groups.js';
import { Roles } from './roles.js';
import { encode, parseMessage, type WireMessage } from './wire.js';
import { connectRedis, redisTarget } from './redis-connect.js';

export interface RedisClusterOptions {
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
}

type BroadcastHandler = (body: unknown, from: string) => void;

export class RedisCluster implements Cluster {
  readonly clustered = true;
  readonly nodeId: string;
  private readonly log: Logger;
  private readonly k: (name: string) => string;
  private cmd: Redis | null = null;
  private sub: Redis | null = null;
  private events: ClusterEvents | null = null;
  private readonly replica = new PresenceReplica();
  /** What this node announced, by vehicle: written again when it joins again. */
  private readonly mine = new Map<string, NodePresence>();
  private readonly requests: PendingRequests;
  private readonly broadcasts = new Map<string, BroadcastHandler>();
  /** Nodes found gone: their late presence messages are ignored until they join again. */
  private readonly buried = new Set<string>();
  private readonly token = randomUUID();
  private readonly heartbeatMs: number;
  private readonly deadAfterMs: number;
  private readonly syncTimeoutMs: number;
  /** Joined and connected: messages flow. */
  private joined = false;
  /** Messages that arrived while the other nodes' state is being loaded. */
  private buffered: WireMessage[] | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private joining: Promise<void> | null = null;
  /** Roles this node runs for (`lead`). */
  private readonly roles: Roles;
  private readonly groups: RedisGroups;

  constructor(private readonly opts: RedisClusterOptions) {
    this.nodeId = opts.nodeId;
    this.log = opts.log.child({ node: opts.nodeId });
    const prefix = opts.prefix.endsWith(':') ? opts.prefix : opts.prefix + ':';
    this.k = (name) => prefix + name;
    this.requests = new PendingRequests(opts.nodeId);
    this.heartbeatMs = opts.heartbeatMs ?? 2000;
    this.deadAfterMs = opts.deadAfterMs ?? 10_000;
    this.syncTimeoutMs = opts.syncTimeoutMs ?? 3000;
    this.roles = new Roles(this.k, this.token, this.deadAfterMs, this.log);
    this.groups = new RedisGroups(this.k, this.nodeId);
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
    this.cmd = await connectRedis(this.opts.url, this.log, 'commands');
    try {
      this.sub = await connectRedis(this.opts.url, this.log, 'messages');
    } catch (err) {
      this.cmd.disconnect();
      throw err;
    }
    // the node id is a lease: a second live node of the same name is refused
    const taken = (await this.cmd.set(this.k(`alive:${this.nodeId}`), this.token, 'PX', this.deadAfterMs, 'NX')) === null;
    if (taken) {
      this.cmd.disconnect();
      this.sub.disconnect();
      throw new VtsError('VTS_ERR_CLUSTER', `the node id ${this.nodeId} is in use by a running node of this cluster: give each node its own --node-id`, { whole: true });
    }
    this.sub.on('message', (channel: string, payload: string) => this.onPayload(payload));
    await this.sub.subscribe(this.k('all'), this.k(`n:${this.nodeId}`));
    await this.join();
    this.cmd.on('close', () => this.lost());
    this.cmd.on('ready', () => void this.rejoin());
    this.timer = setInterval(() => void this.tick(), this.heartbeatMs);
    this.timer.unref();
    this.log.info({ redis: redisTarget(this.opts.url), nodes: this.replica.nodes().length + 1 }, 'joined the cluster');
  }

  /** Writes this node's part, learns the others' (messages meanwhile wait), then lets messages flow. */
  private async join(): Promise<void> {
    const cmd = this.redis;
    this.buffered = [];
    try {
      await cmd.set(this.k(`alive:${this.nodeId}`), this.token, 'PX', this.deadAfterMs);
      await cmd.sadd(this.k('nodes'), this.nodeId);
      const mine = this.k(`p:${this.nodeId}`);
      const write = cmd.multi().del(mine);
      for (const [v, p] of this.mine) write.hset(mine, v, JSON.stringify(p));
      write.publish(this.k('all'), encode({ t: 'reset', n: this.nodeId }));
      for (const [v, p] of this.mine) write.publish(this.k('all'), encode({ t: 'p', n: this.nodeId, v, p }));
      await write.exec();
      const changed = new Set(this.replica.clear());
      for (const node of await cmd.smembers(this.k('nodes'))) {
        if (node === this.nodeId) continue;
        if (!(await cmd.exists(this.k(`alive:${node}`)))) {
          await this.bury(node);
          continue;
        }
        this.buried.delete(node);
        const parts = await cmd.hgetall(this.k(`p:${node}`));
        for (const [v, text] of Object.entries(parts)) {
          const p = parsePresence(text);
          if (p && this.replica.set(node, v, p)) changed.add(v);
        }
      }
      this.joined = true;
      const waiting = this.buffered;
      this.buffered = null;
      for (const m of waiting) this.handle(m);
      for (const v of changed) this.events?.presenceChanged(v);
    } finally {
      this.buffered = null;
    }
  }

  /** Redis is back (or this node's lease had run out): join again. */
  private rejoin(): Promise<void> {
    if (this.stopping || this.joined || !this.cmd) return Promise.resolve();
    this.joining ??= this.join()
      .then(() => this.log.warn('cluster: Redis is back: joined the cluster again'))
      .catch((err: unknown) => this.log.warn({ err: errText(err) }, 'cluster: joining again failed (tried again on the next heartbeat)'))
      .finally(() => (this.joining = null));
    return this.joining;
  }

  /** Redis is lost: this node serves its own connections alone until it returns. */
  private lost(): void {
    if (this.stopping || !this.joined) return;
    this.joined = false;
    this.log.warn({ redis: redisTarget(this.opts.url) }, 'cluster: lost Redis: this node goes on serving its own connections and joins again when Redis returns');
    this.requests.failAll(undefined, 'the cluster (Redis) is out of reach');
    for (const v of this.replica.clear()) this.events?.presenceChanged(v);
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
      this.log.debug({ err: errText(err) }, 'cluster: heartbeat failed');
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

  private forget(node: string): void {
    this.buried.add(node);
    this.requests.failAll(node, `node ${node} left the cluster`);
    for (const v of this.replica.dropNode(node)) this.events?.presenceChanged(v);
  }

  // --- messages ---

  private onPayload(payload: string): void {
    const m = parseMessage(payload);
    if (!m) {
      this.log.debug('cluster: a message that is not understood: dropped');
      return;
    }
    if (this.buffered) this.buffered.push(m);
    else this.handle(m);
  }

  private send(node: string, m: WireMessage): void {
    if (!this.joined || !this.cmd) return;
    this.cmd.publish(this.k(`n:${node}`), encode(m)).catch((err: unknown) => this.log.debug({ err: errText(err), to: node }, 'cluster: sending failed'));
  }

  private sendAll(m: WireMessage): void {
    if (!this.joined || !this.cmd) return;
    this.cmd.publish(this.k('all'), encode(m)).catch((err: unknown) => this.log.debug({ err: errText(err) }, 'cluster: broadcast failed'));
  }

  private handle(m: WireMessage): void {
    const events = this.events;
    if (!events) return;
    try {
      switch (m.t) {
        case 'p':
          if (m.n === this.nodeId || this.buried.has(m.n)) return;
          if (this.replica.set(m.n, m.v, m.p)) events.presenceChanged(m.v);
          return;
        case 'reset':
          if (m.n === this.nodeId) return;
          this.buried.delete(m.n);
          for (const v of this.replica.dropNode(m.n)) events.presenceChanged(v);
          return;
        case 'gone':
          if (m.n !== this.nodeId) this.forget(m.n);
          return;
        case 'out':
          return events.output(m.v, { messages: m.m, of: m.of, live: m.live });
        case 'car':
          return events.carMessage(m.v, m.c, m.d);
        case 'taken':
          return events.carTaken(m.v, m.claim);
        case 'g':
          if (m.n !== this.nodeId) events.groupChanged(m.grp, m.v, m.d);
          return;
        case 'b':
          if (m.n !== this.nodeId) this.broadcasts.get(m.topic)?.(m.body, m.n);
          return;
        case 'sync':
          events.committed().then(() => this.send(m.from, { t: 'synced', id: m.id }));
          return;
        case 'synced':
          return this.requests.resolve(m.id, undefined);
        case 'cmd':
          return runRelayed(events, m.id, m.job, (reply) => this.send(m.from, reply));
        case 'rec':
          return this.requests.record(m.id, m.c, m.d);
        case 'done':
          return this.requests.resolve(m.id, { result: m.result, output: m.output, durationMs: m.ms, transport: m.transport });
        case 'fail':
          return this.requests.reject(m.id, relayFailure(m.code, m.detail));
      }
    } catch (err) {
      this.log.error({ err, message: m.t }, 'cluster: handling a message failed');
    }
  }

  // --- Cluster ---

  announce(vehicleId: string, presence: NodePresence): void {
    const empty = !presence.car && !presence.v3 && presence.apps === 0 && presence.batches === 0;
    if (empty) this.mine.delete(vehicleId);
    else this.mine.set(vehicleId, { ...presence });
    if (!this.joined || !this.cmd) return;
    const key = this.k(`p:${this.nodeId}`);
    const write = empty ? this.cmd.hdel(key, vehicleId) : this.cmd.hset(key, vehicleId, JSON.stringify(presence));
    write.catch((err: unknown) => this.log.debug({ err: errText(err) }, 'cluster: writing presence failed'));
    this.sendAll({ t: 'p', n: this.nodeId, v: vehicleId, p: empty ? NO_PRESENCE : presence });
  }

  remote(vehicleId: string): RemotePresence {
    return this.replica.remote(vehicleId);
  }

  async claimCar(vehicleId: string): Promise<number> {
    if (!this.joined) return 0;
    const [old, n] = (await CLAIM_CAR.run(this.redis, [this.k(`car:${vehicleId}`), this.k('car-claims')], [this.nodeId])) as [string | null, number];
    if (typeof old === 'string') {
      const [node, claim] = old.split(' ');
      if (node && node !== this.nodeId) this.send(node, { t: 'taken', v: vehicleId, claim: Number(claim) });
    }
    return n;
  }

  output(nodes: readonly string[], vehicleId: string, out: VehicleOutput): void {
    const m: WireMessage = { t: 'out', v: vehicleId, m: out.messages.map(([c, d]) => [c, d]), of: out.of, live: out.live };
    for (const node of nodes) this.send(node, m);
  }

  toCar(node: string, vehicleId: string, code: string, data: string): void {
    this.send(node, { t: 'car', v: vehicleId, c: code, d: data });
  }

  async sync(node: string): Promise<void> {
    if (!this.joined) return;
    try {
      await this.requests.start<void>(
        node,
        this.syncTimeoutMs,
        () => new VtsError('VTS_ERR_CLUSTER', `node ${node} did not answer in time`),
        (id) => this.send(node, { t: 'sync', id, from: this.nodeId }),
      );
    } catch (err) {
      // the replay goes on: at worst a message committed meanwhile is missed (the next one comes)
      this.log.debug({ err: errText(err), to: node }, 'cluster: replay barrier not answered');
    }
  }

  runCommand(node: string, req: JobRequest): Promise<CommandResult> {
    if (!this.joined) return Promise.reject(new VtsError('VTS_ERR_NOT_CONNECTED', 'the cluster (Redis) is out of reach'));
    const job = jobToWire(req);
    return this.requests.start<CommandResult>(
      node,
      relayGuardMs(req),
      () => new VtsError('VTS_ERR_COMMAND_TIMEOUT', `no answer from node ${node}`),
      (id) => this.send(node, { t: 'cmd', id, from: this.nodeId, job }),
      req.job.onRecord,
    );
  }

  groupChanged(group: string, vehicleId: string, data: string | null): void {
    if (!this.joined || !this.cmd) return;
    this.groups.write(this.cmd, group, vehicleId, data).catch((err: unknown) => this.log.debug({ err: errText(err) }, 'cluster: writing group data failed'));
    this.sendAll({ t: 'g', n: this.nodeId, grp: group, v: vehicleId, d: data });
  }

  async groupMembers(group: string): Promise<[string, string][]> {
    return this.joined ? this.groups.members(this.redis, group) : [];
  }

  async toggle(set: string, member: string, on: boolean): Promise<boolean> {
    const key = this.k(`set:${set}`);
    return (on ? await this.redis.sadd(key, member) : await this.redis.srem(key, member)) === 1;
  }

  async claim(table: string, key: string, owner: string): Promise<string | null> {
    const held = await CLAIM.run(this.redis, [this.k(`t:${table}`)], [key, owner]);
    return typeof held === 'string' ? held : null;
  }

  async release(table: string, key: string, owner: string): Promise<void> {
    await RELEASE.run(this.redis, [this.k(`t:${table}`)], [key, owner]);
  }

  /** Sends a body to every other node's handler of the topic. */
  broadcast(topic: string, body: unknown): void {
    this.sendAll({ t: 'b', n: this.nodeId, topic, body });
  }

  onBroadcast(topic: string, handler: BroadcastHandler): void {
    this.broadcasts.set(topic, handler);
  }

  lead(role: string, onChange: (leading: boolean) => void): () => void {
    const giveUp = this.roles.add(role, onChange, (release) => {
      if (this.joined && this.cmd) release(this.cmd).catch(() => undefined);
    });
    if (this.joined && this.cmd) this.roles.renew(this.cmd).catch(() => undefined);
    return giveUp;
  }

  /** Whether this node is in the cluster now (false while Redis is out of reach). */
  get connected(): boolean {
    return this.joined;
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
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

function parsePresence(text: string): NodePresence | null {
  const p = parseJson(text) as Partial<NodePresence> | null;
  if (!p || typeof p.car !== 'boolean' || typeof p.v3 !== 'boolean' || typeof p.apps !== 'number' || typeof p.batches !== 'number') return null;
  return { car: p.car, v3: p.v3, apps: p.apps, batches: p.batches };
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
