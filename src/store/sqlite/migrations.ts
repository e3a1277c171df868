/**
 * The SQLite schema as an ordered list of migrations. Migration i (0-based) brings a database from
 * `PRAGMA user_version` i to i + 1; a fresh file has user_version 0. Never edit a released
 * migration: append a new one.
 *
 * Times are integer epoch seconds (UTC). Vehicle ids are stored upper-cased (BINARY comparison);
 * owner names compare case-insensitively (NOCASE); message codes and record types are
 * case-sensitive.
 */
import type Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import { ACCOUNT_MIGRATIONS } from './migrations-accounts.js';

export interface Migration {
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'initial schema',
    sql: `
      -- AUTOINCREMENT: an id is never reused, so nothing that still refers to a removed owner
      -- (a session, a log line) can ever designate a later one.
      CREATE TABLE owners (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        name          TEXT    NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT    NOT NULL,
        rights        TEXT    NOT NULL DEFAULT '*',
        created       INTEGER NOT NULL
      );

      CREATE TABLE vehicles (
        id             TEXT    NOT NULL PRIMARY KEY,
        owner_id       INTEGER NOT NULL REFERENCES owners (id) ON DELETE RESTRICT,
        name           TEXT    NOT NULL DEFAULT '',
        car_password   TEXT    NOT NULL,
        type           TEXT    NOT NULL DEFAULT 'CAR' CHECK (type IN ('CAR', 'SERVER')),
        paranoid_token TEXT    NOT NULL DEFAULT '',
        last_update    INTEGER,
        created        INTEGER NOT NULL
      );
      CREATE INDEX vehicles_owner ON vehicles (owner_id);

      CREATE TABLE car_messages (
        vehicle_id TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        code       TEXT    NOT NULL,
        data       TEXT    NOT NULL,
        time       INTEGER NOT NULL,
        paranoid   INTEGER NOT NULL DEFAULT 0,
        ptoken     TEXT    NOT NULL DEFAULT '',
        valid      INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (vehicle_id, code)
      ) WITHOUT ROWID;

      -- The key is (vehicle_id, type, record_number, time); its columns are ordered so that the
      -- primary-key index also serves "records of a type since T, by time then record number".
      -- Record types compare case-insensitively, as in REF (MySQL collation): a client asking
      -- for '*-LOG-Notification' gets the '*-Log-Notification' records.
      CREATE TABLE historical (
        vehicle_id    TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        type          TEXT    NOT NULL COLLATE NOCASE,
        record_number INTEGER NOT NULL,
        time          INTEGER NOT NULL,
        data          TEXT    NOT NULL,
        expires       INTEGER NOT NULL,
        PRIMARY KEY (vehicle_id, type, time, record_number)
      );
      CREATE INDEX historical_expires ON historical (expires);

      CREATE TABLE utilisation (
        vehicle_id  TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        day         INTEGER NOT NULL,
        client_type TEXT    NOT NULL,
        rx          INTEGER NOT NULL DEFAULT 0,
        tx          INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (vehicle_id, day, client_type)
      ) WITHOUT ROWID;
      CREATE INDEX utilisation_day ON utilisation (day);

      CREATE TABLE api_tokens (
        owner_id    INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        token_hash  TEXT    NOT NULL,
        application TEXT    NOT NULL DEFAULT '',
        purpose     TEXT    NOT NULL DEFAULT '',
        permit      TEXT    NOT NULL DEFAULT 'none',
        created     INTEGER NOT NULL,
        last_used   INTEGER,
        PRIMARY KEY (owner_id, token_hash)
      ) WITHOUT ROWID;

      CREATE TABLE push_subscriptions (
        owner_id       INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        vehicle_id     TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        app_id         TEXT    NOT NULL,
        push_type      TEXT    NOT NULL,
        push_key_type  TEXT    NOT NULL,
        push_key_value TEXT    NOT NULL,
        last_updated   INTEGER NOT NULL,
        active         INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (owner_id, vehicle_id, app_id)
      ) WITHOUT ROWID;
      CREATE INDEX push_subscriptions_vehicle ON push_subscriptions (vehicle_id);

      CREATE TABLE autoprovision (
        key           TEXT    NOT NULL PRIMARY KEY,
        server_token  TEXT    NOT NULL,
        server_digest TEXT    NOT NULL,
        message       TEXT    NOT NULL,
        owner_id      INTEGER REFERENCES owners (id) ON DELETE SET NULL
      );
      CREATE INDEX autoprovision_owner ON autoprovision (owner_id);

      -- History as the reference server showed it: stored records plus the traffic counters,
      -- which REF kept as records of type '*-OVM-Utilisation' (docs/protocol/mp.md §17):
      -- 0 = server sent to the car, 1 = server received from the car, 2 = sent to apps,
      -- 3 = received from apps; time = the day; data = the decimal count. REF expired them at
      -- the next UTC midnight, hence expires = day + 86400 (vts keeps them until
      -- purgeUtilisation).
      CREATE VIEW historical_all (vehicle_id, type, record_number, time, data, expires) AS
        SELECT vehicle_id, type, record_number, time, data, expires FROM historical
        UNION ALL
        SELECT vehicle_id, '*-OVM-Utilisation', 0, day, CAST(tx AS TEXT), day + 86400
          FROM utilisation WHERE client_type = 'C'
        UNION ALL
        SELECT vehicle_id, '*-OVM-Utilisation', 1, day, CAST(rx AS TEXT), day + 86400
          FROM utilisation WHERE client_type = 'C'
        UNION ALL
        SELECT vehicle_id, '*-OVM-Utilisation', 2, day, CAST(tx AS TEXT), day + 86400
          FROM utilisation WHERE client_type = 'A'
        UNION ALL
        SELECT vehicle_id, '*-OVM-Utilisation', 3, day, CAST(rx AS TEXT), day + 86400
          FROM utilisation WHERE client_type = 'A';
    `,
  },
  {
    description: 'command audit',
    sql: `
      -- Every command run through the server's command service: who, what (secrets masked),
      -- how it ended and how long it took. Kept with the vehicle.
      CREATE TABLE command_audit (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        vehicle_id  TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        time        INTEGER NOT NULL,
        caller      TEXT    NOT NULL,
        via         TEXT    NOT NULL,
        kind        TEXT    NOT NULL,
        command     TEXT    NOT NULL,
        result      TEXT    NOT NULL,
        duration_ms INTEGER NOT NULL
      );
      CREATE INDEX command_audit_vehicle ON command_audit (vehicle_id, id);
    `,
  },
  {
    description: 'push outbox',
    sql: `
      -- The last delivery result of a subscription (the detail of its last attempt; '' never
      -- tried), for the owner's list of subscriptions.
      ALTER TABLE push_subscriptions ADD COLUMN last_result TEXT NOT NULL DEFAULT '';
      ALTER TABLE push_subscriptions ADD COLUMN last_time INTEGER;

      -- A user's own delivery targets (webhook, ntfy), for all the user's vehicles.
      CREATE TABLE notify_targets (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id    INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        kind        TEXT    NOT NULL CHECK (kind IN ('webhook', 'ntfy')),
        url         TEXT    NOT NULL,
        secret      TEXT    NOT NULL DEFAULT '',
        created     INTEGER NOT NULL,
        last_result TEXT    NOT NULL DEFAULT '',
        last_time   INTEGER
      );
      CREATE INDEX notify_targets_owner ON notify_targets (owner_id);

      -- The push outbox (src/store/push-store.ts): every notification of a vehicle, limited
      -- (over the vehicle's rate limit: no deliveries) or not.
      CREATE TABLE push_notifications (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id   INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        vehicle_id TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        alert_type TEXT    NOT NULL,
        text       TEXT    NOT NULL,
        time       INTEGER NOT NULL,
        limited    INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX push_notifications_owner ON push_notifications (owner_id, id);
      CREATE INDEX push_notifications_vehicle ON push_notifications (vehicle_id, id);
      CREATE INDEX push_notifications_time ON push_notifications (time);

      -- One per subscription (owner and vehicle of the notification, app_id; target_id 0) or
      -- user target (target_id; app_id '') that should receive the notification. No foreign key
      -- to them: the history outlives them. A node holds a delivery it works on until
      -- claimed_until (claimed_by NULL, claimed_until 0: nobody); address: where the last claim
      -- sent it.
      CREATE TABLE push_deliveries (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        notification_id INTEGER NOT NULL REFERENCES push_notifications (id) ON DELETE CASCADE,
        channel         TEXT    NOT NULL,
        app_id          TEXT    NOT NULL DEFAULT '',
        target_id       INTEGER NOT NULL DEFAULT 0,
        state           TEXT    NOT NULL
          CHECK (state IN ('pending', 'receipt', 'delivered', 'failed', 'skipped', 'removed')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_at         INTEGER NOT NULL,
        claimed_by      TEXT,
        claimed_until   INTEGER NOT NULL DEFAULT 0,
        address         TEXT    NOT NULL DEFAULT '',
        receipt         TEXT    NOT NULL DEFAULT ''
      );
      -- the claim: open deliveries of a channel in the order they are due (a partial index, as the
      -- claim filters on two states: an index on state would not give that order)
      CREATE INDEX push_deliveries_due ON push_deliveries (channel, next_at, id) WHERE state IN ('pending', 'receipt');
      CREATE INDEX push_deliveries_notification ON push_deliveries (notification_id, id);
      CREATE INDEX push_deliveries_claimed ON push_deliveries (claimed_by) WHERE claimed_by IS NOT NULL;

      CREATE TABLE push_attempts (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id INTEGER NOT NULL REFERENCES push_deliveries (id) ON DELETE CASCADE,
        time        INTEGER NOT NULL,
        state       TEXT    NOT NULL,
        detail      TEXT    NOT NULL
      );
      CREATE INDEX push_attempts_delivery ON push_attempts (delivery_id, id);

      -- The per-vehicle rate limit's token bucket: its level (tokens) as of the time at.
      CREATE TABLE push_buckets (
        vehicle_id TEXT    NOT NULL PRIMARY KEY REFERENCES vehicles (id) ON DELETE CASCADE,
        tokens     REAL    NOT NULL,
        at         INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    description: 'database identity',
    sql: `
      -- Facts about the database itself. database_id: made once, at random; the nodes of a
      -- cluster compare theirs to be sure that they share one database (src/cluster/).
      CREATE TABLE vts_meta (
        key   TEXT NOT NULL PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO vts_meta (key, value) VALUES ('database_id', lower(hex(randomblob(16))));
    `,
  },
  {
    description: 'import origins',
    sql: `
      -- An account's e-mail address (brought over from a reference server by vts import).
      ALTER TABLE owners ADD COLUMN mail TEXT NOT NULL DEFAULT '';

      -- What vts import (src/import/) brought over from a reference server, by kind (owner,
      -- vehicle, token, subscription, autoprovision) and the row's key there: the row it became
      -- here (target_key), a digest of what it was (fingerprint: an import that finds it unchanged
      -- at the source leaves the row alone, whatever happened to it here since) and, for an
      -- owner, what its password was checked against (secret: a hash, never a password).
      CREATE TABLE import_origins (
        kind        TEXT NOT NULL,
        source_key  TEXT NOT NULL,
        target_key  TEXT NOT NULL,
        fingerprint TEXT NOT NULL DEFAULT '',
        secret      TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (kind, source_key)
      ) WITHOUT ROWID;
    `,
  },
  {
    description: 'drives and charges',
    sql: `
      -- A vehicle's drives and charges as its tracker computed them (src/store/drives-store.ts):
      -- unique by kind and key (the tracker's identity of a session, so that a rebuild keeps the
      -- ids of the sessions that stay); end_time NULL while in progress; body: the session as
      -- JSON without its path or samples, which are in session_details (a list reads no route).
      CREATE TABLE sessions (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        vehicle_id TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        kind       TEXT    NOT NULL CHECK (kind IN ('drive', 'charge')),
        key        TEXT    NOT NULL,
        start_time INTEGER NOT NULL,
        end_time   INTEGER,
        body       TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX sessions_key ON sessions (vehicle_id, kind, key);
      -- the list: sessions ending at or after a time (an open one: never ended), one range of this
      -- index; the start is checked in it too (see src/store/drives-rows.ts)
      CREATE INDEX sessions_span ON sessions (vehicle_id, kind, coalesce(end_time, 9000000000000000), start_time);

      -- A drive's path or a charge's samples (JSON).
      CREATE TABLE session_details (
        session_id INTEGER NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        detail     TEXT    NOT NULL
      );

      -- The checkpoint of a vehicle's tracker: its state (JSON) and the sequence number of the
      -- commit that wrote it (the guard against two writers).
      CREATE TABLE session_trackers (
        vehicle_id TEXT    NOT NULL PRIMARY KEY REFERENCES vehicles (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        state      TEXT    NOT NULL,
        updated    INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- An owner's places (name, position, tariff) as JSON.
      CREATE TABLE places (
        id       INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        body     TEXT    NOT NULL
      );
      CREATE INDEX places_owner ON places (owner_id, id);
    `,
  },
  {
    description: 'session revisions',
    sql: `
      -- A session row's revision, bumped at every write of it: a list reads the ids and revisions
      -- from its index and only the bodies it has not read at that revision (src/store/drives-rows.ts).
      ALTER TABLE sessions ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
      DROP INDEX sessions_span;
      CREATE INDEX sessions_span ON sessions (vehicle_id, kind, coalesce(end_time, 9000000000000000), start_time, rev);
    `,
  },
  {
    description: 'ABRP links',
    sql: `
      -- A vehicle linked to its owner's ABRP account (src/store/abrp-store.ts): the user token
      -- sealed with a key that is not in the database (token: 'v1:…', never the token itself),
      -- and the state of the sending (last telemetry sent, last error, back-off).
      CREATE TABLE abrp_links (
        vehicle_id      TEXT    NOT NULL PRIMARY KEY REFERENCES vehicles (id) ON DELETE CASCADE,
        owner_id        INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        token           TEXT    NOT NULL,
        state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'ok', 'failing', 'refused')),
        created         INTEGER NOT NULL,
        last_sent       INTEGER,
        last_tlm        TEXT    NOT NULL DEFAULT '',
        last_error      TEXT    NOT NULL DEFAULT '',
        last_error_time INTEGER,
        failures        INTEGER NOT NULL DEFAULT 0,
        retry_at        INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX abrp_links_owner ON abrp_links (owner_id);
    `,
  },
  {
    description: 'alert rules',
    sql: `
      -- Alert rules an owner sets per vehicle (src/store/alerts-store.ts): the kind and its
      -- settings as checked JSON ({"kind":"soc-reached","threshold":80}).
      CREATE TABLE alert_rules (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        vehicle_id TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        settings   TEXT    NOT NULL,
        created    INTEGER NOT NULL,
        -- the rule counter's value when the row was written: a vehicle's (count, max(rev)) changes
        -- with every change to its rules
        rev        INTEGER NOT NULL
      );
      CREATE INDEX alert_rules_vehicle ON alert_rules (vehicle_id, id);
      -- Each vehicle's alert engine state (JSON), saved only over the version it was read at.
      CREATE TABLE alert_state (
        vehicle_id TEXT    NOT NULL PRIMARY KEY REFERENCES vehicles (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        state      TEXT    NOT NULL
      ) WITHOUT ROWID;
      -- Each owner's delivery settings: quiet hours (JSON, NULL none).
      CREATE TABLE alert_settings (
        owner_id INTEGER NOT NULL PRIMARY KEY REFERENCES owners (id) ON DELETE CASCADE,
        quiet    TEXT
      );
      INSERT INTO vts_meta (key, value) VALUES ('alert_rules_version', '0');
      -- A notification raised by a rule: its kind (or 'online') and the rule's id; and until
      -- when its deliveries are held for the owner's quiet hours.
      ALTER TABLE push_notifications ADD COLUMN event TEXT;
      ALTER TABLE push_notifications ADD COLUMN rule INTEGER;
      ALTER TABLE push_notifications ADD COLUMN held_until INTEGER;
    `,
  },
  ...ACCOUNT_MIGRATIONS,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database up to SCHEMA_VERSION. Safe when several processes open the same file at
 * once: the version is re-read inside an IMMEDIATE (write-locked) transaction, and the version
 * bump commits atomically with the migration.
 * @throws VtsError VTS_ERR_STORE_SCHEMA when the file was written by a newer vts
 */
export function migrate(db: Database.Database): void {
  const check = (v: number): void => {
    if (v > SCHEMA_VERSION) {
      throw new VtsError(
        'VTS_ERR_STORE_SCHEMA',
        `schema version ${v}, this vts knows up to ${SCHEMA_VERSION}`,
      );
    }
  };
  const found = userVersion(db);
  check(found);
  if (found === SCHEMA_VERSION) return;
  db.transaction(() => {
    const current = userVersion(db);
    check(current);
    for (let v = current; v < SCHEMA_VERSION; v++) {
      db.exec(MIGRATIONS[v]!.sql);
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
