/**
 * Who hears a vehicle go online or offline (`Hub.onLinkChange`): the state mirror that publishes
 * each car's availability. Told by the hub when this node's car or v3 link comes or goes, and by
 * the ClusterInbox when another node's presence of a vehicle changed (`ownerId` null: this node
 * has no link of it). A listener that throws is logged and disturbs nobody.
 */
import type { Logger } from 'pino';

export type LinkListener = (vehicleId: string, ownerId: number | null) => void;

export class LinkObservers {
  private listeners: readonly LinkListener[] = [];

  constructor(private readonly log: Logger) {}

  /** Adds a listener; the returned function removes it. */
  add(listener: LinkListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  notify(vehicleId: string, ownerId: number | null): void {
    for (const l of this.listeners) {
      try {
        l(vehicleId, ownerId);
      } catch (err) {
        this.log.error({ err, vehicle: vehicleId }, 'link listener failed');
      }
    }
  }
}
