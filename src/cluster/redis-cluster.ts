/**
 * The cluster over Redis (`--cluster redis://…`): many `vts serve` nodes share one database and
 * one Redis, which holds only what is short-lived or can be rebuilt from the nodes' own
 * connections. Like Traccar's broadcast service, the database stays the source of truth.
 *
 * - Membership: each node holds a lease `alive:<node>` that it renews every `heartbeatMs`; a node
 *   whose lease ran out (`deadAfterMs`, kill -9, a lost network) is taken out of `nodes` by the
 *   first node to notice, which tells the others (`gone`). A node that finds its own lease gone
 *   (Redis lost it, or the others buried it) joins again.
 * - Presence: each node's part per vehicle in `p:<node>`, published as it changes; every node
 *   keeps a copy of the others' (src/cluster/presence-sync.ts), loaded at join and read again
 *   every `repairMs`, which also renews this node's car claims (src/cluster/car-claims.ts).
 * - Messages: to one node on `n:<node>`, to all on `all` (src/cluster/wire.ts). A request to a
 *   node that nobody listens for (PUBLISH reached no one: it died) fails at once, marked as not
 *   delivered (the command service routes it again), and the node is forgotten here.
 * - Losing Redis (either connection: the command one, or the pub/sub one, whose messages meanwhile
 *   are lost): the node goes on serving its own connections as if alone (what the others held is
 *   forgotten, requests to them fail at once), logs it once, and joins again once both connections
 *   are back; what changed meanwhile is published then. A connection that hangs (no answer, nothing
 *   closed) is noticed by a PING each heartbeat and closed (src/cluster/redis-connect.ts).
 * - The node id's lease names its process (src/cluster/node-lease.ts): a dead predecessor's is taken
 *   over at once.
 */
import type { CommandResult, JobRequest } from '../hub/commands/command-service.js';
import { VtsError } from '../errors.js';
import { jobToWire, relayFailure, relayGuardMs, runRelayed } from './command-relay.js';
import type { Cluster, NodePresence, RemotePresence, VehicleOutput } from '../hub/cluster/cluster.js';
import { CLAIM, RELEASE } from './scripts.js';
import { errText, RedisNode, type RedisNodeOptions } from './redis-node.js';
import type { WireMessage } from './wire.js';

export type RedisClusterOptions = RedisNodeOptions;

type BroadcastHandler = (body: unknown, from: string) => void;

export class RedisCluster extends RedisNode implements Cluster {
  readonly clustered = true;
  private readonly broadcasts = new Map<string, BroadcastHandler>();

  protected handle(m: WireMessage): void {
    const events = this.events;
    if (!events) return;
    try {
      switch (m.t) {
        case 'p':
          if (m.n === this.nodeId || this.buried.has(m.n)) return;
          if (this.presence.replica.set(m.n, m.v, m.p)) events.presenceChanged(m.v);
          return;
        case 'reset':
          if (m.n === this.nodeId) return;
          this.buried.delete(m.n);
          for (const v of this.presence.replica.dropNode(m.n)) events.presenceChanged(v);
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
    const redis = this.joined ? this.cmd : null;
    if (!presence.car) this.claims.release(redis, vehicleId);
    this.presence.set(redis, vehicleId, presence);
  }

  remote(vehicleId: string): RemotePresence {
    return this.presence.replica.remote(vehicleId);
  }

  claimCar(vehicleId: string): Promise<number> {
    return this.claims.claim(this.joined ? this.cmd : null, vehicleId);
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
        (id) => this.request(node, id, { t: 'sync', id, from: this.nodeId }),
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
      (id) => this.request(node, id, { t: 'cmd', id, from: this.nodeId, job }),
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
}
