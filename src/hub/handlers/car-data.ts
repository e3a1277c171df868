/** Store-and-forward of the car's data messages (mp-protocol.md §9.1). */
import { repairStatus } from '../../core/mp/car-message.js';
import type { HubPort, StoredRef } from './port.js';
import type { VehicleLink } from '../vehicle-link.js';

/** Who sent a car message: a car connection, or the v3 bridge (id 0). */
export interface MessageSource {
  readonly id: number;
  readonly ptoken: string;
}

/**
 * Stores the latest message of its code, logs it to history when configured, and once that is
 * committed forwards the original message to all clients, then `f<version>` after an `F`, then
 * `T0`, and tells the live watchers.
 * For a paranoid message, `code`/`data` are the inner code and payload and `original` is the
 * `E` message's data to forward.
 */
export function storeAndForward(
  hub: HubPort,
  peer: MessageSource,
  link: VehicleLink,
  code: string,
  data: string,
  paranoid: boolean,
  original?: string,
): void {
  const payload = paranoid ? data : repairStatus(code, data);
  const time = hub.seconds();
  const keep = hub.options.messageHistorySeconds;
  // the message, and its historical record when history is kept, in one buffered write
  hub.store.putCarMessage(link.vehicleId, { code, data: payload, time, paranoid, ptoken: peer.ptoken }, keep > 0 ? time + keep : 0);
  const live = !paranoid && hub.watched(link.vehicleId);
  const clients = hub.clientsOf(link);
  if (!live && clients === null) return;
  hub.store.afterCommit(() => {
    if (live) hub.emitLiveNow(link.vehicleId, { kind: 'record', code, data: payload, time });
    if (clients === null) return;
    const of: StoredRef = { code, data: payload, time };
    const fwdCode = paranoid ? 'E' : code;
    const fwdData = paranoid ? (original ?? '') : payload;
    const version = code === 'F' ? hub.options.serverVersion : null;
    for (const p of clients) {
      hub.deliverNow(p, fwdCode, fwdData, of);
      if (version !== null) hub.deliverNow(p, 'f', version, of);
      hub.deliverNow(p, 'T', '0', of);
    }
  });
}
