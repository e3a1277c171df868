/**
 * The hub: the one stateful service. It knows which car, apps, batch clients and API sessions are
 * connected to which vehicle on this node, learns through its Cluster what the other nodes hold,
 * routes messages between them (docs/protocol/mp.md §8–§16) and talks to the store. It has no socket
 * code: adapters hand it `Peer`s and decoded messages.
 *
 * "Seen" implies "committed": what the hub passes on to apps, batch clients, live watchers,
 * notifiers and other nodes, and its replies to any peer (`a`, `c`, …), go out only after the
 * store has committed everything written before them (`Store.afterCommit`), so a crash of the
 * process can never lose something a client has already seen. One commit per event-loop turn
 * serves them all.
 *
 * In a cluster: a vehicle's counts (`Z`, `v_apps_connected`, …) and online state are the sum of
 * every node's; messages for a vehicle's clients go to the nodes that have clients of it, and
 * clients' messages for the car to the node that holds it; an app's login replay waits until the
 * car's node has committed what it holds, so nothing falls between the replay and the forwarding.
 */
import type { Logger } from 'pino';
import type { HistoricalInput } from '../core/mp/historical.js';
import type { MpMessage } from '../core/mp/message.js';
import type { Store, Vehicle } from '../store/store.js';
import { type Cluster, type ClusterEvents, type VehicleOutput, SoloCluster } from './cluster/cluster.js';
import { CommandQueue } from './commands/command-queue.js';
import type { CommandWaiter } from './commands/command-waiter.js';
import { CommandService, DEFAULT_COMMAND_OPTIONS } from './commands/command-service.js';
import { Notifications } from './notifications/notifications.js';
import { dispatch } from './dispatch.js';
import { groupMessageData } from '../core/mp/group.js';
import { storeAndForward, V3_SOURCE } from './handlers/car-data.js';
import { historicalRecord, observeHistorical } from './handlers/historical.js';
import { forwardNotification } from './handlers/push.js';
import { GroupRegistry } from './links/groups.js';
import { LiveWatchers, type LiveListener } from './observers/live-watchers.js';
import { CarDataObservers, type CarDataObserver } from './observers/car-data-observers.js';
import { LinkObservers, type LinkListener } from './observers/link-observers.js';
import { MpCommandTransport } from './commands/mp-command-transport.js';
import type { Peer } from './links/peer.js';
import { AccessRevocations, cutShared } from './access/access-revocations.js';
import { ClusterInbox } from './cluster/cluster-inbox.js';
import { ClusterRoutes } from './cluster/cluster-routes.js';
import { sendHeld, sendReplay, type HeldMessage } from './links/replay.js';
import { TrafficAccounting } from './links/traffic.js';
import type { V3Link } from './links/v3-link.js';
import { V3CommandTransport } from './commands/v3-command-transport.js';
import type { VehicleLink } from './links/vehicle-link.js';
import { VehicleLinks, type LinkKind } from './links/vehicle-links.js';
import type { HubOptions, HubPort } from './handlers/port.js';
import type { LiveEvent, StoredRef } from './types.js';
import { NO_TELEMETRY, type Telemetry } from './telemetry.js';

export type { HubOptions } from './handlers/port.js';
export type { LiveEvent, StoredRef } from './types.js';
export type { LiveListener } from './observers/live-watchers.js';
export type { CarDataEvent, CarDataObserver } from './observers/car-data-observers.js';
export { NEVER_UPDATED_AGE } from './links/replay.js';

export type { Notification } from './notifications/notifications.js';

const LINK_CHANGED: LiveEvent = { kind: 'link' };

export class Hub implements HubPort {
  readonly groups = new GroupRegistry();
  readonly traffic = new TrafficAccounting();
  /** Notifications: `events` hears each one (the push notifiers to come, `run` outputs). */
  readonly notifications: Notifications;
  readonly events: Notifications['events'];
  readonly live: LiveWatchers;
  /** Who hears each record of a vehicle once it is committed (`onCarData`). */
  readonly carData: CarDataObservers;
  /** This node's vehicle links, and the cluster's view of each vehicle. */
  readonly links: VehicleLinks;
  /** Who hears a vehicle go online or offline (`onLinkChange`). */
  private readonly linkObservers: LinkObservers;
  /** What the other nodes of a cluster tell this one. */
  readonly inbox: ClusterEvents;
  /** Clients whose login replay is still being read: messages for them wait here. */
  private readonly held = new Map<Peer, HeldMessage[]>();
  readonly now: () => number;
  /** Where events are counted for `/metrics`. */
  readonly telemetry: Telemetry;
  /** Every command to a vehicle goes through it (HTTP, custom API, MP clients' `C`, other nodes). */
  readonly commands: CommandService;
  readonly access: AccessRevocations; // revoked shares cut connections on every node (access/access-revocations.ts)

  constructor(
    readonly store: Store,
    readonly log: Logger,
    readonly options: HubOptions,
    /** The other nodes of a cluster (none by default). */
    readonly cluster: Cluster = new SoloCluster(),
  ) {
    this.now = options.now ?? Date.now;
    this.telemetry = options.telemetry ?? NO_TELEMETRY;
    this.live = new LiveWatchers(log);
    this.carData = new CarDataObservers(log);
    this.linkObservers = new LinkObservers(log);
    this.links = new VehicleLinks(cluster);
    this.inbox = new ClusterInbox(this);
    (this.access = new AccessRevocations(cluster, log)).onRevoke((vehicleId, userId) => cutShared(this, vehicleId, userId));
    this.notifications = new Notifications(this);
    this.events = this.notifications.events;
    const v2 = new MpCommandTransport(this);
    const v3 = new V3CommandTransport(this, (fn) => store.afterCommit(fn));
    this.commands = new CommandService(
      store,
      options.commandLink === 'mqtt' ? [v3, v2] : [v2, v3],
      log,
      { ...DEFAULT_COMMAND_OPTIONS, ...options.commands },
      this.now,
      (listener) => this.events.on('notification', (n) => listener(n.vehicleId, n.alertType, n.text)),
      cluster.clustered ? new ClusterRoutes(cluster) : undefined,
      this.telemetry,
    );
  }

  /** Current time in epoch seconds. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  link(vehicleId: string): VehicleLink | undefined {
    return this.links.get(vehicleId);
  }

  // --- car-data observers and live watchers (docs/web-api.md) ---

  /**
   * Hears every record a vehicle sends on this node's links, once the store has committed it
   * (src/hub/observers/car-data-observers.ts), until the returned function is called.
   */
  onCarData(observer: CarDataObserver): () => void {
    return this.carData.add(observer);
  }

  /**
   * Hears when a vehicle goes online or offline: this node's car or v3 link of it came or went, or
   * (`ownerId` null) another node's presence of it changed; until the returned function is called.
   */
  onLinkChange(listener: LinkListener): () => void {
    return this.linkObservers.add(listener);
  }

  /** Tells the link listeners (`onLinkChange`); the ClusterInbox, with `ownerId` null. */
  linkChanged(vehicleId: string, ownerId: number | null): void {
    this.linkObservers.notify(vehicleId, ownerId);
  }

  /** Hears the vehicle's records, notifications and link changes until the returned function is called. */
  watch(vehicleId: string, listener: LiveListener): () => void {
    return this.live.watch(vehicleId, listener);
  }

  /** Whether anyone on this node watches the vehicle live (to spare building events nobody hears). */
  watched(vehicleId: string): boolean {
    return this.live.watched(vehicleId);
  }

  /** Tells the vehicle's live watchers after the commit of what was stored before (cheap when there are none). */
  emitLive(vehicleId: string, event: LiveEvent): void {
    if (!this.live.watched(vehicleId)) return;
    this.store.afterCommit(() => this.live.emit(vehicleId, event));
  }

  /** Tells the vehicle's live watchers now: only from an `afterCommit` callback. */
  emitLiveNow(vehicleId: string, event: LiveEvent): void {
    this.live.emit(vehicleId, event);
  }

  /** Which links the vehicle is on now (on any node): `v2`, `mqtt`, `v2+mqtt` or null. */
  linkKind(vehicleId: string): LinkKind {
    return this.links.linkKind(vehicleId);
  }

  /** Connection counts as the HTTP API reports them (the whole cluster's). */
  counts(vehicleId: string): { net: number; apps: number; batches: number } {
    return this.links.counts(vehicleId);
  }

  /** Every logged-in peer of this node (for the inactivity sweep and traffic flushes). */
  peers(): Iterable<Peer> {
    return this.links.peers();
  }

  // --- HTTP API sessions and live streams as apps (docs/protocol/http-api-v2.md §4.5) ---

  /**
   * Registers an API session or live stream (by key) as an app of the vehicle and tells the car its
   * new app count. Returns the app count before the call (0 means this one is the first app).
   */
  registerApiApp(vehicleId: string, ownerId: number, key: string): number {
    const link = this.links.getOrCreate(vehicleId, ownerId);
    const before = this.links.appCount(link);
    if (!link.apiApps.has(key)) {
      link.addApiApp(key);
      this.links.announce(link);
      this.tellCarAppCount(link);
    }
    return before;
  }

  unregisterApiApp(vehicleId: string, key: string): void {
    const link = this.links.get(vehicleId);
    if (!link?.deleteApiApp(key)) return;
    this.links.announce(link);
    this.tellCarAppCount(link);
    this.links.prune(link);
  }

  /**
   * Resolves once the nodes that hold the vehicle's links have committed what they hold, so that
   * what is read from the store next is all that they will not forward (the replay barrier).
   */
  async settled(vehicleId: string): Promise<void> {
    const r = this.cluster.remote(vehicleId);
    const nodes = new Set([r.carNode, r.v3Node].filter((n): n is string => n !== null));
    await Promise.all([...nodes].map((n) => this.cluster.sync(n)));
  }

  // --- delivery ---

  /**
   * Sends to a peer after the commit of everything stored before (a client's message is held
   * while its login replay is in progress).
   */
  deliver(peer: Peer, code: string, data: string): void {
    this.store.afterCommit(() => this.deliverNow(peer, code, data, undefined));
  }

  /**
   * Sends now, or holds the message while the client's login replay is in progress: only from an
   * `afterCommit` callback. `of`: the stored car message it passes on, if any.
   */
  deliverNow(peer: Peer, code: string, data: string, of: StoredRef | undefined): void {
    const held = this.held.get(peer);
    if (held) held.push({ code, data, of });
    else peer.send(code, data);
  }

  /** The vehicle's apps and batch clients on this node now; null when there are none. */
  clientsOf(link: VehicleLink): Peer[] | null {
    if (link.apps.size === 0 && link.batches.size === 0) return null;
    return [...link.apps, ...link.batches];
  }

  /** Whether other nodes have clients of the vehicle (its messages must go there too). */
  interestedElsewhere(vehicleId: string): boolean {
    return this.cluster.clustered && this.cluster.remote(vehicleId).interested.length > 0;
  }

  /** Sends the output to the vehicle's clients on other nodes: only from an `afterCommit` callback. */
  fanOut(vehicleId: string, out: VehicleOutput): void {
    if (!this.cluster.clustered) return;
    const nodes = this.cluster.remote(vehicleId).interested;
    if (nodes.length > 0) this.cluster.output(nodes, vehicleId, out);
  }

  /** Sends to every app and batch client of the vehicle (on any node), after the commit. */
  toClients(link: VehicleLink, code: string, data: string): void {
    const peers = this.clientsOf(link);
    if (peers === null && !this.interestedElsewhere(link.vehicleId)) return;
    this.store.afterCommit(() => {
      if (peers) for (const p of peers) this.deliverNow(p, code, data, undefined);
      this.fanOut(link.vehicleId, { messages: [[code, data]] });
    });
  }

  /** Sends to the vehicle's car, on whichever node holds it (dropped when it is offline). */
  toCar(link: VehicleLink, code: string, data: string): void {
    if (link.car) return link.car.send(code, data);
    const node = this.cluster.remote(link.vehicleId).carNode;
    if (node !== null) this.cluster.toCar(node, link.vehicleId, code, data);
  }

  /** Tells the car how many apps it has (`Z<n>`) and the v3 link whether to announce a client. */
  tellCarAppCount(link: VehicleLink, force = false): void {
    const n = this.links.appCount(link);
    if (n !== link.toldAppCount || force) {
      link.toldAppCount = n;
      link.car?.send('Z', String(n));
      link.v3?.clientCount(n);
    }
    this.emitLive(link.vehicleId, LINK_CHANGED);
  }

  /** Tells this node's clients `Z1`/`Z0` when the vehicle's online state (on any node) changed. */
  tellOnline(link: VehicleLink): void {
    const online = this.links.isOnline(link);
    if (online === link.shownOnline) return;
    link.shownOnline = online;
    this.toLocalClients(link, 'Z', online ? '1' : '0');
    this.linkChanged(link.vehicleId, link.ownerId);
  }

  /** Sends to this node's clients of the vehicle only (each node tells its own), after the commit. */
  private toLocalClients(link: VehicleLink, code: string, data: string): void {
    const peers = this.clientsOf(link);
    if (peers !== null) this.store.afterCommit(() => peers.forEach((p) => this.deliverNow(p, code, data, undefined)));
  }

  // --- login and logout (docs/protocol/mp.md §8, §13.3) ---

  /** Registers a freshly authenticated peer and performs the after-login exchange of §8. */
  async attach(peer: Peer, vehicle: Vehicle): Promise<void> {
    if (peer.clientType === 'S') return; // REF does nothing with peer servers (docs/protocol/mp.md §8.4)
    const link = this.links.getOrCreate(vehicle.id, vehicle.ownerId);
    switch (peer.clientType) {
      case 'C':
        return this.attachCar(peer, link, vehicle);
      case 'A':
      case 'B': {
        this.held.set(peer, []);
        link.addPeer(peer, peer.clientType === 'A' ? 'app' : 'batch');
        this.links.announce(link);
        if (peer.clientType === 'A') this.tellCarAppCount(link);
        else this.emitLive(link.vehicleId, LINK_CHANGED);
        let replayed: Set<string> | undefined;
        try {
          await this.settled(vehicle.id);
          replayed = await this.replay(peer, link, vehicle);
        } finally {
          const held = this.held.get(peer) ?? [];
          this.held.delete(peer);
          sendHeld(peer, held, replayed);
        }
        return;
      }
    }
  }

  private attachCar(peer: Peer, link: VehicleLink, vehicle: Vehicle): void {
    if (link.car) {
      this.log.info({ conn: link.car.id, vehicle: vehicle.id }, 'duplicate car login: closing the older connection');
      const old = link.car;
      this.detach(old);
      old.close('replaced by a newer login of the same vehicle');
    }
    link.car = peer;
    link.commands = new CommandQueue();
    link.paranoidToken = vehicle.paranoidToken;
    link.carClaim = undefined;
    link.supersededClaims = [];
    this.links.announce(link);
    const wasOnline = link.shownOnline;
    link.shownOnline = true;
    this.toLocalClients(link, 'Z', '1');
    if (!wasOnline) this.linkChanged(link.vehicleId, link.ownerId);
    this.tellCarAppCount(link, true); // and the live watchers
    if (!this.cluster.clustered) return;
    // the node that held the car before closes its connection
    this.cluster.claimCar(vehicle.id).then(
      (claim) => {
        if (link.car !== peer) return;
        link.carClaim = claim;
        if (link.supersededClaims.includes(claim)) this.inbox.carTaken(vehicle.id, claim);
        link.supersededClaims = [];
      },
      (err: unknown) => {
        this.log.warn({ err, vehicle: vehicle.id }, 'cluster: claiming the car failed');
        // as a claim made while Redis is away: the cluster claims it again when it can
        if (link.car !== peer) return;
        link.carClaim = 0;
        link.supersededClaims = [];
      },
    );
  }

  /** Sends the client what is stored (read once it is committed); returns the keys of the messages sent. */
  private async replay(peer: Peer, link: VehicleLink, vehicle: Vehicle): Promise<Set<string>> {
    const [messages, fresh] = await Promise.all([this.store.getCarMessages(vehicle.id), this.store.getVehicle(vehicle.id)]);
    const ptoken = fresh?.paranoidToken ?? vehicle.paranoidToken;
    const last = fresh?.lastUpdate ?? vehicle.lastUpdate;
    link.shownOnline = this.links.isOnline(link);
    return sendReplay(peer, link.shownOnline, messages, ptoken, last === null ? null : this.seconds() - last);
  }

  /** The car left: its waiting commands end, after the commit that forwards its last answers. */
  private commandsLeft(waiting: CommandWaiter[]): void {
    if (waiting.length > 0) this.store.afterCommit(() => waiting.forEach((w) => w.carLeft()));
  }

  /** Unregisters a peer (§13.3). Idempotent: adapters call it whenever a connection ends. */
  detach(peer: Peer): void {
    const link = this.links.get(peer.vehicleId);
    this.held.delete(peer);
    this.traffic.collect(peer, this.seconds());
    for (const group of this.groups.forget(peer)) this.cluster.groupChanged(group, peer.vehicleId, null);
    if (!link) return;
    switch (peer.clientType) {
      case 'C':
        if (link.car !== peer) return;
        link.car = null;
        link.toldAppCount = -1;
        this.links.announce(link);
        // after the commit that forwards the answers the car sent before it left
        this.commandsLeft(link.commands.drain());
        this.tellOnline(link);
        this.emitLive(link.vehicleId, LINK_CHANGED);
        break;
      case 'A':
        if (!link.deletePeer(peer, 'app')) return;
        this.links.announce(link);
        this.tellCarAppCount(link);
        break;
      case 'B':
        if (!link.deletePeer(peer, 'batch')) return;
        this.links.announce(link);
        this.emitLive(link.vehicleId, LINK_CHANGED);
        break;
      case 'S':
        return;
    }
    this.links.prune(link);
  }

  /** Handles one decoded message from a logged-in peer (the dispatch of §9). */
  handle(peer: Peer, msg: MpMessage): void {
    if (peer.clientType === 'C') this.telemetry.carMessage(msg.code);
    const link = this.links.get(peer.vehicleId);
    if (link) dispatch(this, peer, link, msg);
    else if (msg.code === 'A') peer.send('a', ''); // a peer server (never registered) still gets pongs
  }

  // --- the v3 (MQTT) link: the bridge stands in for the car ---

  /** The vehicle's module is online on the broker: apps see it connected (`Z1`). */
  attachV3(vehicleId: string, ownerId: number, v3: V3Link): void {
    const link = this.links.getOrCreate(vehicleId, ownerId);
    link.v3 = v3;
    this.links.announce(link);
    this.tellOnline(link);
    v3.clientCount(this.links.appCount(link));
    this.emitLive(vehicleId, LINK_CHANGED);
  }

  /** The module went offline on the broker (its will, `connected` = `no`, or its connection ended). */
  detachV3(vehicleId: string, v3: V3Link): void {
    const link = this.links.get(vehicleId);
    if (!link || link.v3 !== v3) return;
    link.v3 = null;
    this.links.announce(link);
    this.tellOnline(link);
    this.emitLive(vehicleId, LINK_CHANGED);
    this.links.prune(link);
  }

  /** A record rendered from the vehicle's v3 metrics: stored, logged and forwarded like a car's. */
  v3Record(vehicleId: string, ownerId: number, code: string, data: string): void {
    this.telemetry.carMessage(code);
    storeAndForward(this, V3_SOURCE, this.links.getOrCreate(vehicleId, ownerId), code, data, false);
  }

  /** A v3 notification as the `P` data of a car (`I…`, `A…`, `E…`). */
  v3Notification(vehicleId: string, ownerId: number, data: string): void {
    this.telemetry.carMessage('P');
    const link = this.links.getOrCreate(vehicleId, ownerId);
    forwardNotification(this, link, data);
    this.links.prune(link);
  }

  /** A message for the vehicle's apps on any node (a server alert's `P`), after the commit. */
  toApps(vehicleId: string, ownerId: number, code: string, data: string): void {
    const link = this.links.getOrCreate(vehicleId, ownerId);
    this.toClients(link, code, data);
    this.links.prune(link);
  }

  /** A `P` message for the vehicle's apps that is not a notification (a module event). */
  v3ToApps(vehicleId: string, code: string, data: string): void {
    const link = this.links.get(vehicleId);
    if (link) this.toClients(link, code, data);
  }

  /** A historical record from the vehicle (v3 `notify/data`, events); resolves once it is durable. */
  v3Historical(vehicleId: string, rec: HistoricalInput): Promise<void> {
    const stored = historicalRecord(this, vehicleId, rec);
    return this.store.addHistorical(stored, true).then(() => {
      const link = this.links.get(vehicleId);
      if (link) observeHistorical(this, vehicleId, link.ownerId, stored, 'mqtt');
    });
  }

  // --- notifications (docs/protocol/mp.md §12) ---

  /** Records a push notification, and hands it to the notifiers and live watchers (src/hub/notifications/notifications.ts). */
  notify(ownerId: number, vehicleId: string, alertType: string, text: string): void {
    this.notifications.notify(ownerId, vehicleId, alertType, text);
  }

  /** Raises the car-authentication alert of REF: on the first failed car login, and on the next success. */
  carLoginResult(vehicleId: string, ownerId: number, success: boolean, address: string): void {
    this.notifications.carLoginResult(vehicleId, ownerId, success, address);
  }

  /** Sends a group update to this node's subscribers of the group, after the commit. */
  deliverGroup(group: string, vehicleId: string, data: string): void {
    const out = groupMessageData(vehicleId, group, data);
    for (const app of this.groups.subscribersOf(group)) this.deliver(app, 'g', out);
  }
}
