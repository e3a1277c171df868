/** Store-and-forward of the car's data messages (docs/protocol/mp.md §9.1). */
import { repairStatus } from '../../core/mp/car-message.js';
import type { HubPort } from './port.js';
import type { LiveEvent, StoredRef } from '../types.js';
import type { VehicleLink } from '../links/vehicle-link.js';
import { HeardRecord } from '../observers/car-data-observers.js';

/** Who sent a car message: a car connection, or the v3 bridge (V3_SOURCE). */
export interface MessageSource {
  readonly id: number;
  readonly ptoken: string;
}

/** What the v2 handlers know of the v3 link's messages: no connection id, no paranoid token. */
export const V3_SOURCE: MessageSource = { id: 0, ptoken: '' };

/**
 * Stores the latest message of its code, logs it to history when configured, and once that is
 * committed forwards the original message to all clients, then `f<version>` after an `F`, then
 * `T0`, tells the live watchers, and then the car-data observers (src/hub/observers/). While the database is away the commit is held, and so is the
 * forwarding; a message whose write is lost for good is not forwarded at all.
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
  const elsewhere = hub.interestedElsewhere(link.vehicleId);
  if (live || clients !== null || elsewhere) {
    hub.store.afterCommit(() => {
      const event: LiveEvent | undefined = paranoid ? undefined : { kind: 'record', code, data: payload, time };
      if (live && event) hub.emitLiveNow(link.vehicleId, event);
      const of: StoredRef = { code, data: payload, time };
      const messages: [string, string][] = [[paranoid ? 'E' : code, paranoid ? (original ?? '') : payload]];
      if (code === 'F') messages.push(['f', hub.options.serverVersion]);
      messages.push(['T', '0']);
      if (clients !== null) for (const p of clients) for (const [c, d] of messages) hub.deliverNow(p, c, d, of);
      // the nodes with clients of the vehicle: their clients and live watchers
      if (elsewhere) hub.fanOut(link.vehicleId, { messages, of, live: event });
    }, link.vehicleId);
  }
  // the observers after the clients (the same commit, later in its list), at the buffer's own pace;
  // a record nobody else waits for may stand in for an earlier one of its second
  if (!paranoid && hub.carData.active) observeLater(hub, peer, link, code, payload, time, !(live || clients !== null || elsewhere));
}

/**
 * Tells the car-data observers of a record once it is committed. With `standIn` (no client waits
 * for this record, so its place in the commit's list does not matter), a record of the same code
 * and second that waits for the same commit is replaced by this one (the store keeps the later one).
 */
function observeLater(hub: HubPort, peer: MessageSource, link: VehicleLink, code: string, data: string, time: number, standIn: boolean): void {
  const last = link.heard?.get(code);
  if (standIn && last !== undefined && last.time === time && last.commit !== null && last.commit === hub.store.nextCommit()) {
    last.data = data;
    return;
  }
  const record = new HeardRecord(hub.carData, link, link.vehicleId.toUpperCase(), link.ownerId, code, data, time, peer === V3_SOURCE ? 'mqtt' : 'v2');
  record.commit = hub.store.afterLaterCommitOf(record);
  // null: nothing was buffered, so it was told at once; only a record still waiting stays on the link
  if (record.commit !== null) (link.heard ??= new Map()).set(code, record);
}
