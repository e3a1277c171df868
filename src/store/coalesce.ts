/**
 * How each hot-path write is coalesced into the pending batch of the write-behind buffer
 * (src/store/write-behind.ts): the latest message per vehicle and code, the latest version of a
 * historical record, summed traffic deltas, the latest use of an API token; and how buffered
 * writes are forgotten (a vehicle being removed, a token deleted). Each write from outside is
 * counted against the hold bound (src/store/held-writes.ts).
 */
import { countWrite } from './held-writes.js';
import type { CarMessage, HistoricalRecord, UtilisationDelta } from './store.js';
import type { WriteBatch } from './write-batch.js';

const SEP = '\u0000';

/**
 * The latest message of its code; with `historyExpires` > 0 also its historical record (type =
 * code, record number 0), kept with it: one map entry per message on the hot path.
 */
export function putCarMessage(batch: WriteBatch, vehicleId: string, msg: Omit<CarMessage, 'valid'>, historyExpires: number): void {
  let codes = batch.carMessages.get(vehicleId);
  if (!codes) {
    codes = new Map();
    batch.carMessages.set(vehicleId, codes);
  }
  const prev = codes.get(msg.code);
  countWrite(batch, msg.data.length);
  if (!prev) batch.size++;
  else if (prev.historyExpires > 0 && prev.time !== msg.time) {
    // another second: the replaced message's historical record is a record of its own (one
    // that addHistorical buffered with the same key wins, as it does at commit)
    putHistorical(
      batch,
      { vehicleId, type: prev.code, recordNumber: 0, time: prev.time, data: prev.data, expires: prev.historyExpires },
      vehicleId,
      false,
    );
  }
  codes.set(msg.code, {
    vehicleId,
    code: msg.code,
    data: msg.data,
    time: msg.time,
    paranoid: msg.paranoid,
    ptoken: msg.ptoken,
    valid: true,
    historyExpires,
  });
  batch.lastUpdates.set(vehicleId, msg.time);
}

/** The record under `vehicleId` (the store's normalised id); with `replace` false, one already buffered with its key wins. */
export function putHistorical(batch: WriteBatch, rec: HistoricalRecord, vehicleId: string, replace = true): void {
  const key = vehicleId + SEP + rec.type + SEP + rec.recordNumber + SEP + rec.time;
  if (!batch.historical.has(key)) batch.size++;
  else if (!replace) return;
  batch.historical.set(key, {
    vehicleId,
    type: rec.type,
    recordNumber: rec.recordNumber,
    time: rec.time,
    data: rec.data,
    expires: rec.expires,
  });
}

/** Adds the traffic deltas to the batch's sums; whether any was not zero. */
export function addUtilisation(batch: WriteBatch, deltas: readonly UtilisationDelta[]): boolean {
  let added = false;
  for (const d of deltas) {
    if (d.rx === 0 && d.tx === 0) continue;
    const key = d.vehicleId + SEP + d.day + SEP + d.clientType;
    const sum = batch.utilisation.get(key);
    if (sum) {
      sum.rx += d.rx;
      sum.tx += d.tx;
    } else {
      batch.utilisation.set(key, { vehicleId: d.vehicleId, day: d.day, clientType: d.clientType, rx: d.rx, tx: d.tx });
      batch.size++;
    }
    added = true;
  }
  return added;
}

/** The latest use of the token. */
export function touchApiToken(batch: WriteBatch, ownerId: number, tokenHash: string, time: number): void {
  const key = ownerId + SEP + tokenHash;
  const prev = batch.tokenTouches.get(key);
  if (prev) {
    prev.time = Math.max(prev.time, time);
  } else {
    batch.tokenTouches.set(key, { ownerId, tokenHash, time });
    batch.size++;
  }
}

/** Forgets the batch's writes of a vehicle (it is being removed). */
export function discardVehicle(batch: WriteBatch, vehicleId: string): void {
  const codes = batch.carMessages.get(vehicleId);
  if (codes) {
    batch.size -= codes.size;
    batch.carMessages.delete(vehicleId);
  }
  batch.lastUpdates.delete(vehicleId);
  if (batch.paranoidTokens.delete(vehicleId)) batch.size--;
  for (const [key, rec] of batch.historical) {
    if (rec.vehicleId === vehicleId) {
      batch.historical.delete(key);
      batch.size--;
    }
  }
  for (const [key, d] of batch.utilisation) {
    if (d.vehicleId === vehicleId) {
      batch.utilisation.delete(key);
      batch.size--;
    }
  }
}

/** Forgets the batch's uses of one token, or of all tokens of the owner when tokenHash is omitted. */
export function discardTokenTouches(batch: WriteBatch, ownerId: number, tokenHash?: string): void {
  for (const [key, t] of batch.tokenTouches) {
    if (t.ownerId === ownerId && (tokenHash === undefined || t.tokenHash === tokenHash)) {
      batch.tokenTouches.delete(key);
      batch.size--;
    }
  }
}
