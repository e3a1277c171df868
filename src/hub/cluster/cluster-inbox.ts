/**
 * What the other nodes of a cluster tell this one (ClusterEvents), applied to this node's hub: a
 * vehicle's presence elsewhere changed (its `Z` counts and online state, told to this node's car
 * and clients), messages for this node's clients of a vehicle, a client's message for this node's
 * car, a newer login of this node's car elsewhere, the replay barrier, a command for a vehicle on
 * this node, group data of a car elsewhere.
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/store.js';
import type { ClusterEvents, VehicleOutput } from './cluster.js';
import type { CommandResult, JobRequest } from '../commands/command-service.js';
import type { Peer } from '../links/peer.js';
import type { VehicleLink } from '../links/vehicle-link.js';
import type { LiveEvent, StoredRef } from '../types.js';

/** What the inbox uses of this node's hub (the Hub implements it; the inbox never imports the hub). */
export interface InboxHub {
  readonly log: Logger;
  readonly store: Pick<Store, 'afterCommit'>;
  readonly links: { get(vehicleId: string): VehicleLink | undefined };
  readonly live: { emit(vehicleId: string, event: LiveEvent): void };
  readonly commands: { run(req: JobRequest): Promise<CommandResult> };
  tellOnline(link: VehicleLink): void;
  /** Tells the hub's link listeners (ownerId null: a vehicle this node has no link of). */
  linkChanged(vehicleId: string, ownerId: number | null): void;
  tellCarAppCount(link: VehicleLink): void;
  emitLive(vehicleId: string, event: LiveEvent): void;
  clientsOf(link: VehicleLink): Peer[] | null;
  deliverNow(peer: Peer, code: string, data: string, of: StoredRef | undefined): void;
  detach(peer: Peer): void;
  deliverGroup(group: string, vehicleId: string, data: string): void;
}

export class ClusterInbox implements ClusterEvents {
  constructor(private readonly hub: InboxHub) {}

  presenceChanged(vehicleId: string): void {
    const link = this.hub.links.get(vehicleId);
    if (!link) {
      this.hub.linkChanged(vehicleId, null);
      return;
    }
    this.hub.tellOnline(link);
    if (link.car || link.v3) this.hub.tellCarAppCount(link);
    else this.hub.emitLive(vehicleId, { kind: 'link' });
  }

  output(vehicleId: string, out: VehicleOutput): void {
    const hub = this.hub;
    if (out.live) hub.live.emit(vehicleId, out.live);
    const link = hub.links.get(vehicleId);
    const peers = link ? hub.clientsOf(link) : null;
    if (peers === null) return;
    // committed on the node that sent it: passed on now (held while a client's replay runs)
    for (const p of peers) for (const [code, data] of out.messages) hub.deliverNow(p, code, data, out.of);
  }

  carMessage(vehicleId: string, code: string, data: string): void {
    this.hub.links.get(vehicleId)?.car?.send(code, data);
  }

  carTaken(vehicleId: string, claim: number): void {
    const link = this.hub.links.get(vehicleId);
    const car = link?.car;
    if (!link || !car) return;
    if (link.carClaim === undefined) {
      link.supersededClaims.push(claim); // decided when this car's own claim comes back
      return;
    }
    if (link.carClaim !== claim) return; // a newer login of it on this node
    this.hub.log.info({ conn: car.id, vehicle: vehicleId }, 'the car logged in on another node: closing this connection');
    this.hub.detach(car);
    car.close('replaced by a newer login of the same vehicle on another node');
  }

  carReclaimed(vehicleId: string, from: number, to: number): void {
    const link = this.hub.links.get(vehicleId);
    if (link?.car && link.carClaim === from) link.carClaim = to;
  }

  committed(): Promise<void> {
    return new Promise((resolve) => this.hub.store.afterCommit(resolve));
  }

  runCommand(req: JobRequest): Promise<CommandResult> {
    return this.hub.commands.run({ ...req, relayed: true });
  }

  groupChanged(group: string, vehicleId: string, data: string | null): void {
    if (data !== null) this.hub.deliverGroup(group, vehicleId, data);
  }
}
