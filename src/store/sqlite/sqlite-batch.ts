/**
 * One write-behind batch (src/store/write-batch.ts) as SQLite statements, in one IMMEDIATE
 * transaction. Rows of vehicles removed meanwhile (possibly by another process) are dropped: each
 * insert selects its vehicle.
 */
import type Database from 'better-sqlite3';
import type { WriteBatch } from '../write-batch.js';

function prepareStatements(db: Database.Database) {
  return {
    deleteVehicle: db.prepare<[string]>('DELETE FROM vehicles WHERE id = ?'),
    setParanoidToken: db.prepare<[string, string]>('UPDATE vehicles SET paranoid_token = ? WHERE id = ?'),
    invalidateParanoid: db.prepare<[string, string]>(
      'UPDATE car_messages SET valid = 0 WHERE vehicle_id = ? AND paranoid = 1 AND ptoken <> ? AND valid = 1',
    ),
    setLastUpdate: db.prepare<[number, string]>('UPDATE vehicles SET last_update = ? WHERE id = ?'),
    putCarMessage: db.prepare<[string, string, number, number, string, number, string]>(
      `INSERT INTO car_messages (vehicle_id, code, data, time, paranoid, ptoken, valid)
       SELECT v.id, ?, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, code) DO UPDATE SET data = excluded.data, time = excluded.time,
         paranoid = excluded.paranoid, ptoken = excluded.ptoken, valid = excluded.valid`,
    ),
    putHistorical: db.prepare<[string, number, number, string, number, string]>(
      `INSERT INTO historical (vehicle_id, type, record_number, time, data, expires)
       SELECT v.id, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, type, time, record_number) DO UPDATE SET data = excluded.data,
         expires = excluded.expires`,
    ),
    addUtilisation: db.prepare<[number, string, number, number, string]>(
      `INSERT INTO utilisation (vehicle_id, day, client_type, rx, tx)
       SELECT v.id, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, day, client_type) DO UPDATE SET rx = rx + excluded.rx, tx = tx + excluded.tx`,
    ),
    touchApiToken: db.prepare<[number, number, string]>(
      'UPDATE api_tokens SET last_used = max(coalesce(last_used, 0), ?) WHERE owner_id = ? AND token_hash = ?',
    ),
  };
}

/** The function that commits a batch in one IMMEDIATE transaction on `db` (throws when nothing was committed). */
export function batchCommitter(db: Database.Database): (batch: WriteBatch) => void {
  const s = prepareStatements(db);
  return db.transaction((batch: WriteBatch) => {
    // removals and token changes first: they apply to what was put before them (the batches
    // committed before this one, and the messages of this one they marked in memory)
    for (const [vehicleId, removal] of batch.removals) removal.removed = s.deleteVehicle.run(vehicleId).changes > 0;
    for (const [vehicleId, tokens] of batch.paranoidTokens) {
      for (const token of tokens) s.invalidateParanoid.run(vehicleId, token);
      s.setParanoidToken.run(tokens[tokens.length - 1]!, vehicleId);
    }
    for (const codes of batch.carMessages.values()) {
      for (const m of codes.values()) {
        s.putCarMessage.run(m.code, m.data, m.time, m.paranoid ? 1 : 0, m.ptoken, m.valid ? 1 : 0, m.vehicleId);
        // the message as its historical record: before the batch's other records, so an `H`
        // record of the very same key (type = code, record 0, same second) wins
        if (m.historyExpires > 0) s.putHistorical.run(m.code, 0, m.time, m.data, m.historyExpires, m.vehicleId);
      }
    }
    for (const [vehicleId, time] of batch.lastUpdates) s.setLastUpdate.run(time, vehicleId);
    for (const r of batch.historical.values()) {
      s.putHistorical.run(r.type, r.recordNumber, r.time, r.data, r.expires, r.vehicleId);
    }
    for (const d of batch.utilisation.values()) {
      s.addUtilisation.run(d.day, d.clientType, d.rx, d.tx, d.vehicleId);
    }
    for (const t of batch.tokenTouches.values()) s.touchApiToken.run(t.time, t.ownerId, t.tokenHash);
  }).immediate;
}
