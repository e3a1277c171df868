/** The alerts the server computes, in the server (src/server/server.ts): the service wired to the hub, the cluster and the recorder. */
import type { Logger } from 'pino';
import type { SessionRecorder } from '../drives/session-recorder.js';
import type { Cluster } from '../hub/cluster/cluster.js';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import { AlertService, type AlertServiceOptions } from './alert-service.js';

export interface AlertsSide {
  readonly service: AlertService;
  /** A vehicle's rules changed on this node (the HTTP API). */
  rulesChanged(vehicleId: string): void;
  /** An owner's places changed on this node (the HTTP API). */
  placesChanged(ownerId: number): void;
  close(): Promise<void>;
}

/** Starts the service (it reads which vehicles have rules first). */
export async function startAlerts(hub: Hub, store: Store, log: Logger, cluster: Cluster, recorder: SessionRecorder | null, options?: AlertServiceOptions): Promise<AlertsSide> {
  const service = new AlertService(
    {
      store,
      log,
      seconds: () => hub.seconds(),
      onCarData: (o) => hub.onCarData(o),
      onLinkChange: (l) => hub.onLinkChange(l),
      carHere: (vehicleId) => {
        const link = hub.link(vehicleId);
        return link !== undefined && (link.car !== null || link.v3 !== null);
      },
      carAnywhere: (vehicleId) => hub.linkKind(vehicleId) !== null,
      lead: (role, onChange) => cluster.lead(role, onChange),
      raise: (ownerId, vehicleId, alertType, text, tag) => hub.notifications.alert(ownerId, vehicleId, alertType, text, tag),
    },
    options,
  );
  const stopDrives = recorder?.onDrive((vehicleId, ownerId, drive) => service.driveFinished(vehicleId, ownerId, drive));
  await service.start();
  return {
    service,
    rulesChanged: (vehicleId: string) => service.rulesChanged(vehicleId),
    placesChanged: (ownerId: number) => service.placesChanged(ownerId),
    close: async () => {
      stopDrives?.();
      await service.close();
    },
  };
}
