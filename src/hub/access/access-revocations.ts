/**
 * Revoked access to a vehicle (issue 31, docs/accounts.md "Sharing"): when an owner revokes or
 * changes a share (or removes the vehicle), the user's live connections of that vehicle are cut at
 * once, on every node of a cluster: the MP app connections (the hub), the dashboard's live streams
 * and the API v2 registrations (src/http), the MQTT clients (src/mqtt). Requests need nothing of
 * this: they read the share from the store at each call (src/auth/vehicle-access.ts).
 *
 * `revoke` tells this node's listeners and broadcasts the event through the cluster; the other
 * nodes tell theirs.
 */
import type { Logger } from 'pino';
import type { Cluster } from '../cluster/cluster.js';
import type { Peer } from '../links/peer.js';
import type { VehicleLink } from '../links/vehicle-link.js';

/** The user whose access to the vehicle ended or changed (the vehicle id upper-cased). */
export type RevokeListener = (vehicleId: string, userId: number) => void;

const TOPIC = 'access.revoked';

export class AccessRevocations {
  private readonly listeners = new Set<RevokeListener>();

  constructor(
    private readonly cluster: Cluster,
    private readonly log: Logger,
  ) {
    cluster.onBroadcast(TOPIC, (body) => {
      const b = body as { vehicleId?: unknown; userId?: unknown } | null;
      if (typeof b?.vehicleId !== 'string' || typeof b.userId !== 'number') return;
      this.tell(b.vehicleId, b.userId);
    });
  }

  /** Hears every revocation (this node's and the other nodes'); until the returned function is called. */
  onRevoke(listener: RevokeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The user's access to the vehicle ended or changed: cuts its connections here and on the other nodes. */
  revoke(vehicleId: string, userId: number): void {
    const vid = vehicleId.toUpperCase();
    this.cluster.broadcast(TOPIC, { vehicleId: vid, userId });
    this.tell(vid, userId);
  }

  private tell(vehicleId: string, userId: number): void {
    for (const l of [...this.listeners]) {
      try {
        l(vehicleId, userId);
      } catch (err) {
        this.log.error({ err, vehicle: vehicleId }, 'a revocation listener failed');
      }
    }
  }
}

/** What `cutShared` uses of the hub. */
export interface CutHub {
  readonly log: Logger;
  readonly links: { get(vehicleId: string): VehicleLink | undefined };
  detach(peer: Peer): void;
}

/** Closes this node's MP app and batch connections of the vehicle that `userId` opened through a share. */
export function cutShared(hub: CutHub, vehicleId: string, userId: number): void {
  const link = hub.links.get(vehicleId);
  if (!link) return;
  for (const peer of [...link.apps, ...link.batches]) {
    if (peer.userId !== userId || peer.userId === peer.ownerId) continue;
    hub.log.info({ conn: peer.id, vehicle: vehicleId }, 'share revoked: closing the connection');
    hub.detach(peer);
    peer.close('the vehicle is no longer shared with this user');
  }
}
