/** Historical records from cars: `H` (no ack) and `h` (acked once durable) (docs/protocol/mp.md §15). */
import { historicalTimes, parseAckedH, parseH, type HistoricalInput } from '../../core/mp/historical.js';
import { logStoreFailure } from '../../store/outage.js';
import type { HistoricalRecord } from '../../store/store.js';
import type { Handler } from './port.js';
import type { HubPort } from './port.js';

/** The stored form of a record received now (from a v2 `H`/`h`, or the v3 bridge). */
export function historicalRecord(hub: HubPort, vehicleId: string, rec: HistoricalInput): HistoricalRecord {
  const { time, expires } = historicalTimes(rec, hub.seconds());
  return { vehicleId, type: rec.type, recordNumber: rec.recordNumber, time, data: rec.data, expires };
}

/**
 * Tells the car-data observers of a historical record once it is stored (the firmware's trip and
 * charge logs make drives and charges: src/drives/).
 */
export function observeHistorical(hub: HubPort, vehicleId: string, ownerId: number, rec: HistoricalRecord, source: 'v2' | 'mqtt'): void {
  if (!hub.carData.active) return;
  hub.carData.notify({ vehicleId, ownerId, code: rec.type, data: rec.data, time: rec.time, source, historical: true });
}

export const handleHistorical: Handler = (hub, peer, link, data) => {
  const rec = parseH(data);
  if (!rec) {
    hub.log.info({ conn: peer.id, vehicle: link.vehicleId }, 'invalid H message ignored');
    return;
  }
  const stored = historicalRecord(hub, link.vehicleId, rec);
  hub.store
    .addHistorical(stored)
    .then(() => hub.store.afterCommit(() => observeHistorical(hub, link.vehicleId, link.ownerId, stored, 'v2'), link.vehicleId))
    // a failure of a database outage is counted in the outage's log line, not logged each
    .catch((err: unknown) => logStoreFailure(hub.log, 'error', err, { conn: peer.id }, 'storing an H record failed'));
};

/**
 * The ack goes out only after the record is durably stored; if storing fails there is no ack
 * and the module sends the record again. A malformed record is acked at once (as REF does), or
 * the module would resend it forever.
 */
export const handleAckedHistorical: Handler = (hub, peer, link, data) => {
  const { ackCode, record: rec } = parseAckedH(data);
  if (!rec) {
    hub.log.info({ conn: peer.id, vehicle: link.vehicleId }, 'invalid h message acknowledged and ignored');
    peer.send('h', ackCode);
    return;
  }
  const stored = historicalRecord(hub, link.vehicleId, rec);
  hub.store.addHistorical(stored, true).then(
    () => {
      peer.send('h', ackCode);
      observeHistorical(hub, link.vehicleId, link.ownerId, stored, 'v2');
    },
    (err: unknown) => logStoreFailure(hub.log, 'error', err, { conn: peer.id }, 'storing an h record failed: not acknowledged'),
  );
};
