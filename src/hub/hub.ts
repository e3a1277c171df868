/**
 * The hub: the one stateful service. It knows which car, apps, batch clients and API sessions are
 * connected to which vehicle, routes messages between them (mp-protocol.md §8–§16) and talks to
 * the store. It has no socket code: adapters hand it `Peer`s and decoded messages.
 *
 * "Seen" implies "committed": what the hub passes on to apps, batch clients, live watchers and
 * notifiers, and its replies to any peer (`a`, `c`, …), go out only after the store has committed
 * everything written before them (`Store.afterCommit`), so a crash of the process can never lose
 * something a client has already seen. One commit per event-loop turn serves them all.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { replayOrder } from '../core/mp/car-message.js';
import type { HistoricalInput } from '../core/mp/historical.js';
import type { MpMessage } from '../core/mp/message.js';
import type { Store, Vehicle } from '../store/store.js';
import { CommandQueue } from './command-queue.js';
import { CommandService, DEFAULT_COMMAND_OPTIONS } from './command-service.js';
import { MpCommandTransport } from './mp-command-transport.js';
import { V3CommandTransport } from './v3-command-transport.js';
import { dispatch } from './dispatch.js';
import { storeAndForward, type MessageSource } from './handlers/car-data.js';
import { historicalRecord } from './handlers/historical.js';
import { forwardNotification } from './handlers/push.js';
import { GroupRegistry } from './groups.js';
import type { Peer } from './peer.js';
import { TrafficAccounting } from './traffic.js';
import type { V3Link } from './v3-link.js';
import { VehicleLink } from './vehicle-link.js';
import type { HubOptions, HubPort, LiveEvent, StoredRef } from './handlers/port.js';

export type { HubOptions, LiveEvent, StoredRef } from './handlers/port.js';


/** A push notification (`P` from a car, or raised by the server), for the notifiers to come. */
export interface Notification {
  ownerId: number;
  vehicleId: string;
  alertType: string;
  text: string;
  time: number;
}

/** What the v2 handlers know of the v3 link's messages: no connection id, no paranoid token. */
const V3_SOURCE: MessageSource = { id: 0, ptoken: '' };
const LINK_CHANGED: LiveEvent = { kind: 'link' };


export type LiveListener = (event: LiveEvent) => void;

/** The answer of `T` at login when the car never sent anything (REF's clamped MySQL TIME). */
export const NEVER_UPDATED_AGE = 3020399;


/** A message held for a client whose login replay is in progress. */
interface HeldMessage {
  code: string;
  data: string;
  /** The stored message it passes on: dropped if the replay already had it. */
  of: StoredRef | undefined;
}

const storedKey = (m: StoredRef): string => `${m.code}\u0000${m.time}\u0000${m.data}`;

/**
 * Sends what was held for a client during its replay. Car messages held up to the last one of
 * their code that the replay contained are skipped: the replay showed that one, or a newer one
 * that replaced them in the same commit. Later ones, and everything else, follow in order.
 */
function sendHeld(peer: Peer, held: HeldMessage[], replayed: Set<string> | undefined): void {
  const shownUpTo = new Map<string, number>();
  held.forEach((h, k) => {
    if (h.of && replayed?.has(storedKey(h.of))) shownUpTo.set(h.of.code, k);
  });
  held.forEach((h, k) => {
    if (!h.of || k > (shownUpTo.get(h.of.code) ?? -1)) peer.send(h.code, h.data);
  });
}

export class Hub implements HubPort {
  readonly groups = new GroupRegistry();
  readonly traffic = new TrafficAccounting();
  readonly events = new EventEmitter<{ notification: [Notification] }>();
  private readonly links = new Map<string, VehicleLink>();
  /** Clients whose login replay is still being read: messages for them wait here. */
  private readonly held = new Map<Peer, HeldMessage[]>();
  private notificationCounter = 0;
  /** Live watchers (SSE streams) by vehicle id. */
  private readonly live = new Map<string, Set<LiveListener>>();
  readonly now: () => number;
  /** Every command to a vehicle goes through it (HTTP, custom API, MP clients' `C`). */
  readonly commands: CommandService;

  constructor(
    readonly store: Store,
    readonly log: Logger,
    readonly options: HubOptions,
  ) {
    this.now = options.now ?? Date.now;
    const v2 = new MpCommandTransport(this);
    const v3 = new V3CommandTransport(this, (fn) => store.afterCommit(fn));
    this.commands = new CommandService(
      store,
      options.commandLink === 'mqtt' ? [v3, v2] : [v2, v3],
      log,
      { ...DEFAULT_COMMAND_OPTIONS, ...options.commands },
      this.now,
      (listener) => this.events.on('notification', (n) => listener(n.vehicleId, n.alertType, n.text)),
    );
  }

  /** Current time in epoch seconds. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  link(vehicleId: string): VehicleLink | undefined {
    return this.links.get(vehicleId);
  }

  private linkFor(vehicleId: string, ownerId: number): VehicleLink {
    let link = this.links.get(vehicleId);
    if (!link) this.links.set(vehicleId, (link = new VehicleLink(vehicleId, ownerId)));
    return link;
  }

  private prune(link: VehicleLink): void {
    if (link.isEmpty) this.links.delete(link.vehicleId);
  }

  // --- live watchers (docs/web-api.md) ---

  /** Hears the vehicle's records, notifications and link changes until the returned function is called. */
  watch(vehicleId: string, listener: LiveListener): () => void {
    let set = this.live.get(vehicleId);
    if (!set) this.live.set(vehicleId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.live.get(vehicleId) === set) this.live.delete(vehicleId);
    };
  }

  /** Whether anyone watches the vehicle live (to spare building events nobody hears). */
  watched(vehicleId: string): boolean {
    return this.live.size > 0 && this.live.has(vehicleId);
  }

  /** Tells the vehicle's live watchers after the commit of what was stored before (cheap when there are none). */
  emitLive(vehicleId: string, event: LiveEvent): void {
    if (!this.watched(vehicleId)) return;
    this.store.afterCommit(() => this.emitLiveNow(vehicleId, event));
  }

  /** Tells the vehicle's live watchers now: only from an `afterCommit` callback. */
  emitLiveNow(vehicleId: string, event: LiveEvent): void {
    if (this.live.size === 0) return;
    const set = this.live.get(vehicleId);
    if (!set) return;
    for (const l of set) {
      try {
        l(event);
      } catch (err) {
        this.log.error({ err, vehicle: vehicleId }, 'live watcher failed');
      }
    }
  }

  /** Which links the vehicle is on now: `v2`, `mqtt`, `v2+mqtt` or null. */
  linkKind(vehicleId: string): 'v2' | 'mqtt' | 'v2+mqtt' | null {
    const link = this.links.get(vehicleId);
    if (!link) return null;
    if (link.car && link.v3) return 'v2+mqtt';
    return link.car ? 'v2' : link.v3 ? 'mqtt' : null;
  }

  /** Connection counts as the HTTP API reports them. */
  counts(vehicleId: string): { net: number; apps: number; batches: number } {
    const link = this.links.get(vehicleId);
    return { net: link?.online ? 1 : 0, apps: link?.appCount ?? 0, batches: link?.batches.size ?? 0 };
  }

  /** Every logged-in peer (for the inactivity sweep and traffic flushes). */
  *peers(): Iterable<Peer> {
    for (const link of this.links.values()) {
      if (link.car) yield link.car;
      yield* link.apps;
      yield* link.batches;
    }
  }

  // --- HTTP API sessions as apps (http-api-v2.md §4.5, product spec §3) ---

  /**
   * Registers an API session (by key) as an app of the vehicle and tells the car its new app
   * count. Returns the app count before the call (0 means this session is the first peer).
   */
  registerApiApp(vehicleId: string, ownerId: number, key: string): number {
    const link = this.linkFor(vehicleId, ownerId);
    const before = link.appCount;
    if (!link.apiApps.has(key)) {
      link.apiApps.add(key);
      this.tellCarAppCount(link);
    }
    return before;
  }

  unregisterApiApp(vehicleId: string, key: string): void {
    const link = this.links.get(vehicleId);
    if (!link?.apiApps.delete(key)) return;
    this.tellCarAppCount(link);
    this.prune(link);
  }

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

  /** The vehicle's apps and batch clients now; null when there are none. */
  clientsOf(link: VehicleLink): Peer[] | null {
    if (link.apps.size === 0 && link.batches.size === 0) return null;
    return [...link.apps, ...link.batches];
  }

  /** Sends to every app and batch client of the vehicle (those there now), after the commit. */
  toClients(link: VehicleLink, code: string, data: string): void {
    const peers = this.clientsOf(link);
    if (peers === null) return;
    this.store.afterCommit(() => {
      for (const p of peers) this.deliverNow(p, code, data, undefined);
    });
  }

  /** Tells the car how many apps it has (`Z<n>`) and the v3 link whether to announce a client. */
  tellCarAppCount(link: VehicleLink): void {
    link.car?.send('Z', String(link.appCount));
    link.v3?.clientCount(link.appCount);
    this.emitLive(link.vehicleId, LINK_CHANGED);
  }

  // --- login and logout (mp-protocol.md §8, §13.3) ---

  /** Registers a freshly authenticated peer and performs the after-login exchange of §8. */
  async attach(peer: Peer, vehicle: Vehicle): Promise<void> {
    if (peer.clientType === 'S') return; // REF does nothing with peer servers (mp-protocol.md §8.4)
    const link = this.linkFor(vehicle.id, vehicle.ownerId);
    switch (peer.clientType) {
      case 'C': {
        if (link.car) {
          this.log.info({ conn: link.car.id, vehicle: vehicle.id }, 'duplicate car login: closing the older connection');
          const old = link.car;
          this.detach(old);
          old.close('replaced by a newer login of the same vehicle');
        }
        link.car = peer;
        link.commands = new CommandQueue();
        link.paranoidToken = vehicle.paranoidToken;
        this.toClients(link, 'Z', '1');
        this.tellCarAppCount(link); // and the live watchers
        return;
      }
      case 'A':
      case 'B': {
        this.held.set(peer, []);
        if (peer.clientType === 'A') {
          link.apps.add(peer);
          this.tellCarAppCount(link);
        } else {
          link.batches.add(peer);
          this.emitLive(link.vehicleId, LINK_CHANGED);
        }
        let replayed: Set<string> | undefined;
        try {
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

  /** Sends the client what is stored (read once it is committed); returns the keys of the messages sent. */
  private async replay(peer: Peer, link: VehicleLink, vehicle: Vehicle): Promise<Set<string>> {
    const [messages, fresh] = await Promise.all([
      this.store.getCarMessages(vehicle.id),
      this.store.getVehicle(vehicle.id),
    ]);
    peer.send('Z', link.online ? '1' : '0');
    messages.sort((a, b) => replayOrder(a.code, b.code));
    let tokenSent = false;
    const ptoken = fresh?.paranoidToken ?? vehicle.paranoidToken;
    for (const m of messages) {
      if (m.paranoid) {
        if (!tokenSent && ptoken) peer.send('E', 'T' + ptoken);
        tokenSent = true;
        peer.send('E', 'M' + m.code + m.data);
      } else {
        peer.send(m.code, m.data);
      }
    }
    const last = fresh?.lastUpdate ?? vehicle.lastUpdate;
    peer.send('T', String(last === null ? NEVER_UPDATED_AGE : Math.max(0, this.seconds() - last)));
    return new Set(messages.map(storedKey));
  }

  /** The car left: its waiting commands end, after the commit that forwards its last answers. */
  private commandsLeft(waiting: Peer[]): void {
    if (waiting.length > 0) this.store.afterCommit(() => waiting.forEach((p) => p.carLeft?.()));
  }

  /** Unregisters a peer (§13.3). Idempotent: adapters call it whenever a connection ends. */
  detach(peer: Peer): void {
    const link = this.links.get(peer.vehicleId);
    this.held.delete(peer);
    this.traffic.collect(peer, this.seconds());
    this.groups.forget(peer);
    if (!link) return;
    switch (peer.clientType) {
      case 'C':
        if (link.car !== peer) return;
        link.car = null;
        // after the commit that forwards the answers the car sent before it left
        this.commandsLeft(link.commands.drain());
        if (!link.online) this.toClients(link, 'Z', '0');
        this.emitLive(link.vehicleId, LINK_CHANGED);
        break;
      case 'A':
        if (!link.apps.delete(peer)) return;
        if (link.car) link.commands.forget(peer);
        this.tellCarAppCount(link);
        break;
      case 'B':
        if (!link.batches.delete(peer)) return;
        if (link.car) link.commands.forget(peer);
        this.emitLive(link.vehicleId, LINK_CHANGED);
        break;
      case 'S':
        return;
    }
    this.prune(link);
  }

  /** Handles one decoded message from a logged-in peer (the dispatch of §9). */
  handle(peer: Peer, msg: MpMessage): void {
    const link = this.links.get(peer.vehicleId);
    if (link) dispatch(this, peer, link, msg);
    else if (msg.code === 'A') peer.send('a', ''); // a peer server (never registered) still gets pongs
  }

  // --- the v3 (MQTT) link: the bridge stands in for the car ---

  /** The vehicle's module is online on the broker: apps see it connected (`Z1`). */
  attachV3(vehicleId: string, ownerId: number, v3: V3Link): void {
    const link = this.linkFor(vehicleId, ownerId);
    const wasOnline = link.online;
    link.v3 = v3;
    if (!wasOnline) this.toClients(link, 'Z', '1');
    v3.clientCount(link.appCount);
    this.emitLive(vehicleId, LINK_CHANGED);
  }

  /** The module went offline on the broker (its will, `connected` = `no`, or its connection ended). */
  detachV3(vehicleId: string, v3: V3Link): void {
    const link = this.links.get(vehicleId);
    if (!link || link.v3 !== v3) return;
    link.v3 = null;
    if (!link.online) this.toClients(link, 'Z', '0');
    this.emitLive(vehicleId, LINK_CHANGED);
    this.prune(link);
  }

  /** A record rendered from the vehicle's v3 metrics: stored, logged and forwarded like a car's. */
  v3Record(vehicleId: string, ownerId: number, code: string, data: string): void {
    storeAndForward(this, V3_SOURCE, this.linkFor(vehicleId, ownerId), code, data, false);
  }

  /** A v3 notification as the `P` data of a car (`I…`, `A…`, `E…`). */
  v3Notification(vehicleId: string, ownerId: number, data: string): void {
    const link = this.linkFor(vehicleId, ownerId);
    forwardNotification(this, link, data);
    this.prune(link);
  }

  /** A `P` message for the vehicle's apps that is not a notification (a module event). */
  v3ToApps(vehicleId: string, code: string, data: string): void {
    const link = this.links.get(vehicleId);
    if (link) this.toClients(link, code, data);
  }

  /** A historical record from the vehicle (v3 `notify/data`, events); resolves once it is durable. */
  v3Historical(vehicleId: string, rec: HistoricalInput): Promise<void> {
    return this.store.addHistorical(historicalRecord(this, vehicleId, rec), true);
  }

  // --- notifications (mp-protocol.md §12) ---

  /**
   * Records a push notification and hands it to the notifiers (listeners of `notification`) and
   * live watchers, after the commit of what was stored before (its history record included).
   */
  notify(ownerId: number, vehicleId: string, alertType: string, text: string): void {
    const time = this.seconds();
    const keep = this.options.notificationHistorySeconds;
    if (keep > 0) {
      const recordNumber = this.notificationCounter;
      this.notificationCounter = (this.notificationCounter + 1) & 0xffff;
      this.store
        .addHistorical({
          vehicleId,
          type: '*-Log-Notification',
          recordNumber,
          time,
          data: `${alertType},${text}`,
          expires: time + keep,
        })
        .catch((err: unknown) => this.log.error({ err, vehicle: vehicleId }, 'storing a notification failed'));
    }
    this.store.afterCommit(() => {
      this.events.emit('notification', { ownerId, vehicleId, alertType, text, time });
      this.emitLiveNow(vehicleId, { kind: 'notification', type: alertType, text, time });
    });
  }
}
