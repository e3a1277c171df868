/** Store-and-forward of the car's data messages (mp-protocol.md §9.1). */
import { repairStatus } from '../../core/mp/car-message.js';
import type { Hub } from '../hub.js';
import type { VehicleLink } from '../vehicle-link.js';

/** Who sent a car message: a car connection, or the v3 bridge (id 0). */
export interface MessageSource {
  readonly id: number;
  readonly ptoken: string;
}

/**
 * Stores the latest message of its code, logs it to history when configured, forwards the
 * original message to all clients, then `f<version>` after an `F`, then `T0`.
 * For a paranoid message, `code`/`data` are the inner code and payload and `original` is the
 * `E` message's data to forward.
 */
export function storeAndForward(
  hub: Hub,
  peer: MessageSource,
  link: VehicleLink,
  code: string,
  data: string,
  paranoid: boolean,
  original?: string,
): void {
  const payload = paranoid ? data : repairStatus(code, data);
  const time = hub.seconds();
  hub.store.putCarMessage(link.vehicleId, { code, data: payload, time, paranoid, ptoken: peer.ptoken });
  const keep = hub.options.messageHistorySeconds;
  if (keep > 0) {
    hub.store
      .addHistorical({ vehicleId: link.vehicleId, type: code, recordNumber: 0, time, data: payload, expires: time + keep })
      .catch((err: unknown) => hub.log.error({ err, conn: peer.id }, 'storing message history failed'));
  }
  if (!paranoid && hub.watched(link.vehicleId)) hub.emitLive(link.vehicleId, { kind: 'record', code, data: payload, time });
  if (link.apps.size === 0 && link.batches.size === 0) return;
  if (paranoid) hub.toClients(link, 'E', original ?? '');
  else hub.toClients(link, code, payload);
  if (code === 'F') hub.toClients(link, 'f', hub.options.serverVersion);
  hub.toClients(link, 'T', '0');
}
