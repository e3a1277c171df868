/**
 * The running server as the operator's page sees it (src/http/web-api/admin-figures.ts): the
 * connections this node holds by kind, the car messages received per second, the push outbox,
 * and in a cluster every node's figures (each node broadcasts its own every few seconds); and the
 * end of a disabled user's live connections on every node (a broadcast, acted on by each node).
 */
import type { Client } from 'aedes';
import type { Logger } from 'pino';
import type { Cluster } from '../hub/cluster/cluster.js';
import type { Hub } from '../hub/hub.js';
import type { Telemetry } from '../hub/telemetry.js';
import type { AdminSide, NodeFigures, ServerFigures } from '../http/web-api/admin-figures.js';
import type { EmbeddedBroker } from '../mqtt/broker.js';
import type { Store } from '../store/store.js';

const FIGURES_TOPIC = 'admin.figures';
const DISCONNECT_TOPIC = 'admin.disconnect';
/** How often a node samples its message count and tells the others its figures. */
const TICK_MS = 2000;
/** The rate is over this many ticks. */
const WINDOW = 5;
/** A node not heard from for this long is left off the list. */
const STALE_S = 15;

/** Counts the car messages for the rate, and passes every event on to the metrics. */
export class IngestMeter implements Telemetry {
  total = 0;
  constructor(private readonly inner: Telemetry) {}
  carMessage(code: string): void {
    this.total++;
    this.inner.carMessage(code);
  }
  command(link: string, outcome: string, seconds: number): void {
    this.inner.command(link, outcome, seconds);
  }
  httpRequest(group: string, status: number, seconds: number): void {
    this.inner.httpRequest(group, status, seconds);
  }
  httpThrottled(): void {
    this.inner.httpThrottled();
  }
  storeCommit(rows: number, seconds: number): void {
    this.inner.storeCommit(rows, seconds);
  }
}

export interface AdminSideParts {
  hub: Hub;
  store: Store;
  cluster: Cluster;
  meter: IngestMeter;
  log: Logger;
  version: string;
  /** Epoch ms. */
  startedAt: number;
  /** Open live streams of this node. */
  liveStreams: () => number;
}

function isNodeFigures(x: unknown): x is NodeFigures {
  if (x === null || typeof x !== 'object') return false;
  const f = x as Record<string, unknown>;
  return typeof f.node === 'string' && typeof f.messagesPerSecond === 'number' && typeof f.time === 'number' && f.connections !== null && typeof f.connections === 'object';
}

export class ServerAdminSide implements AdminSide {
  private broker: EmbeddedBroker | null = null;
  private readonly mqttClients = new Set<Client>();
  private readonly samples: { ms: number; total: number }[] = [];
  private readonly others = new Map<string, NodeFigures>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly p: AdminSideParts) {
    p.cluster.onBroadcast(FIGURES_TOPIC, (body, from) => {
      if (isNodeFigures(body) && from !== p.cluster.nodeId) this.others.set(from, body);
    });
    p.cluster.onBroadcast(DISCONNECT_TOPIC, (body) => {
      const b = body as { ownerId?: unknown; name?: unknown } | null;
      if (b && typeof b.ownerId === 'number' && typeof b.name === 'string') this.disconnectHere(b.ownerId, b.name);
    });
    this.sample();
    this.timer = setInterval(() => {
      this.sample();
      if (p.cluster.clustered) p.cluster.broadcast(FIGURES_TOPIC, this.self());
    }, TICK_MS);
    this.timer.unref();
  }

  /** The embedded broker, once it listens: its clients are counted and may be disconnected. */
  attachBroker(broker: EmbeddedBroker): void {
    this.broker = broker;
    broker.aedes.on('clientReady', (c) => this.mqttClients.add(c));
    broker.aedes.on('clientDisconnect', (c) => this.mqttClients.delete(c));
  }

  close(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    this.samples.push({ ms: this.p.hub.now(), total: this.p.meter.total });
    if (this.samples.length > WINDOW + 1) this.samples.shift();
  }

  private rate(): number {
    const first = this.samples[0];
    const last = { ms: this.p.hub.now(), total: this.p.meter.total };
    if (!first || last.ms - first.ms < 500) return 0;
    return Math.round(((last.total - first.total) * 1000 * 10) / (last.ms - first.ms)) / 10;
  }

  private self(): NodeFigures {
    const n = this.p.hub.links.connectionCounts();
    return {
      node: this.p.cluster.nodeId,
      connections: {
        cars: n.car,
        apps: n.app,
        batch: n.batch,
        mqttModules: n.mqttModule,
        mqttClients: this.broker ? this.broker.aedes.connectedClients : 0,
        apiSessions: n.apiSession,
        liveStreams: this.p.liveStreams(),
      },
      messagesPerSecond: this.rate(),
      time: this.p.hub.seconds(),
    };
  }

  async figures(): Promise<ServerFigures> {
    const self = this.self();
    const now = this.p.hub.seconds();
    for (const [node, f] of this.others) if (now - f.time > STALE_S) this.others.delete(node);
    let outbox: Record<string, number> = {};
    try {
      outbox = Object.fromEntries(await this.p.store.push.countOpen());
    } catch (err) {
      this.p.log.debug({ err }, "the operator's page: the outbox could not be counted");
    }
    return {
      version: this.p.version,
      uptime: Math.max(0, Math.floor((Date.now() - this.p.startedAt) / 1000)),
      self,
      outbox,
      cluster: {
        clustered: this.p.cluster.clustered,
        health: this.p.cluster.health(),
        nodes: [self, ...[...this.others.values()].sort((a, b) => a.node.localeCompare(b.node))],
      },
    };
  }

  disconnectUser(ownerId: number, name: string): void {
    this.disconnectHere(ownerId, name);
    if (this.p.cluster.clustered) this.p.cluster.broadcast(DISCONNECT_TOPIC, { ownerId, name });
  }

  /** This node's MP apps and batch clients of the user's vehicles or login, and its MQTT clients logged in as the user. */
  private disconnectHere(ownerId: number, name: string): void {
    for (const peer of [...this.p.hub.peers()]) {
      if (peer.ownerId === ownerId && (peer.clientType === 'A' || peer.clientType === 'B')) peer.close('account disabled');
    }
    const lower = name.toLowerCase();
    for (const c of [...this.mqttClients]) {
      if (this.broker?.userOf(c)?.name.toLowerCase() === lower) c.close();
    }
  }
}
