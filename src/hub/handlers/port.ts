/**
 * What the MP message handlers (one per code, src/hub/handlers/) may use of the hub: a narrow
 * port, so that handlers depend only downward and a clustered hub can provide the same. The hub
 * implements it; the dispatcher passes it to each handler.
 */
import type { Telemetry } from '../telemetry.js';
import type { Logger } from 'pino';
import type { Store } from '../../store/store.js';
import type { CommandResult, CommandServiceOptions, JobRequest } from '../commands/command-service.js';
import type { VehicleOutput } from '../cluster/cluster.js';
import type { GroupRegistry } from '../links/groups.js';
import type { Peer } from '../links/peer.js';
import type { VehicleLink } from '../links/vehicle-link.js';
import type { Notifier } from '../notifications/notifier.js';
import type { LiveEvent, StoredRef } from '../types.js';
import type { CarDataObservers } from '../observers/car-data-observers.js';

export interface HubOptions {
  /** Sent to apps as `f<version>` after every `F`. */
  serverVersion: string;
  /** Seconds each car message is also kept as a historical record of its code (0 = off). */
  messageHistorySeconds: number;
  /** Seconds push notifications are kept as `*-Log-Notification` history (0 = off). */
  notificationHistorySeconds: number;
  /** Days of utilisation that command 30 reports and the store keeps. */
  utilisationDays: number;
  /** Clock in epoch milliseconds (tests pass their own). */
  now?: () => number;
  /** The command service: queue length per vehicle, default and maximum timeout. */
  commands?: Partial<CommandServiceOptions>;
  /** Which link carries commands when a vehicle is on both (default `v2`). */
  commandLink?: 'v2' | 'mqtt';
  /** Who delivers push notifications (src/push/; default: nobody). */
  notifier?: Notifier;
  /** Where events are counted for `/metrics` (default: nowhere). */
  telemetry?: Telemetry;
}

export interface HubPort {
  readonly store: Store;
  readonly log: Logger;
  readonly options: HubOptions;
  /** This node's group subscribers and its cars' group data. */
  readonly groups: GroupRegistry;
  /** The other nodes of a cluster (shared group data); a single node has none. */
  readonly cluster: {
    readonly clustered: boolean;
    readonly nodeId: string;
    groupChanged(group: string, vehicleId: string, data: string | null): void;
    groupMembers(group: string): Promise<[string, string][]>;
  };
  /** The command service (src/hub/commands/command-service.ts): every command to a vehicle goes through it. */
  readonly commands: { run(req: JobRequest): Promise<CommandResult> };
  /** Who hears each record after its commit (drives, integrations, alerts). */
  readonly carData: Pick<CarDataObservers, 'active' | 'notify'>;
  /** Current time in epoch seconds. */
  seconds(): number;
  /** Whether a live watcher (the dashboard) follows the vehicle. */
  watched(vehicleId: string): boolean;
  emitLiveNow(vehicleId: string, event: LiveEvent): void;
  /** Sends to a peer once what was written before is committed. */
  deliver(peer: Peer, code: string, data: string): void;
  /** Sends now (the caller has waited for the commit); `of` names the stored message it passes on. */
  deliverNow(peer: Peer, code: string, data: string, of: StoredRef | undefined): void;
  /** The apps and batch clients of a vehicle on this node, or null when there are none. */
  clientsOf(link: VehicleLink): Peer[] | null;
  /** Whether other nodes of a cluster have clients of the vehicle. */
  interestedElsewhere(vehicleId: string): boolean;
  /** Sends to the vehicle's clients on other nodes: only from an `afterCommit` callback. */
  fanOut(vehicleId: string, out: VehicleOutput): void;
  /** Sends to every app and batch client of the vehicle (on any node), after the commit. */
  toClients(link: VehicleLink, code: string, data: string): void;
  /** Sends to the vehicle's car, wherever it is connected (dropped when it is offline). */
  toCar(link: VehicleLink, code: string, data: string): void;
  /** Sends a group update to this node's subscribers of the group, after the commit. */
  deliverGroup(group: string, vehicleId: string, data: string): void;
  notify(ownerId: number, vehicleId: string, alertType: string, text: string): void;
}

/** One message code's handler: the hub port, the sender, its vehicle and the message data. */
export type Handler = (hub: HubPort, peer: Peer, link: VehicleLink, data: string) => void;

/** A message the dispatch table drops (said at debug level). */
export function ignored(hub: HubPort, peer: Peer, code: string, why: string): void {
  if (hub.log.isLevelEnabled('debug')) hub.log.debug({ conn: peer.id, code }, `ignored ${why}`);
}
