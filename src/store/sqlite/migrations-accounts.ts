/**
 * The SQLite migrations of the accounts (issue 31, docs/accounts.md): owners' mail address and
 * states, account tokens, invitations, recovery codes, passkeys, shares, the audit log and the
 * sign-in challenges. Part of the ordered list in migrations.ts, which appends them in this order;
 * kept apart for the list's length. Never edit a released migration: append a new one there.
 */
export const ACCOUNT_MIGRATIONS = [
  {
    description: 'accounts',
    sql: `
      -- Accounts (issue 31, docs/accounts.md). An owner's mail address (signed-up accounts; NULL
      -- for those made with the CLI or imported), whether it was verified (accounts made before
      -- this migration, or by the CLI, are), whether the operator disabled it, the admin right
      -- (not part of "*"), whether the account password may log in on the API v2 (else only API
      -- tokens), and its TOTP second factor (secret sealed, last time step used against replays).
      ALTER TABLE owners ADD COLUMN email TEXT COLLATE NOCASE;
      ALTER TABLE owners ADD COLUMN verified INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE owners ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE owners ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE owners ADD COLUMN api_passwords INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE owners ADD COLUMN totp_secret TEXT;
      ALTER TABLE owners ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE owners ADD COLUMN totp_step INTEGER NOT NULL DEFAULT 0;
      CREATE UNIQUE INDEX owners_email ON owners (email) WHERE email IS NOT NULL;
      -- Single-use tokens mailed to an owner (verify the address, reset the password), hashed.
      CREATE TABLE account_tokens (
        token_hash TEXT    NOT NULL PRIMARY KEY,
        owner_id   INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        purpose    TEXT    NOT NULL CHECK (purpose IN ('verify', 'reset')),
        expires    INTEGER NOT NULL,
        created    INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX account_tokens_owner ON account_tokens (owner_id);
      -- Invitation codes (--registration invite), hashed; uses_left counts down.
      CREATE TABLE invites (
        code_hash TEXT    NOT NULL PRIMARY KEY,
        uses_left INTEGER NOT NULL,
        expires   INTEGER,
        created   INTEGER NOT NULL
      ) WITHOUT ROWID;
      -- The TOTP recovery codes of an owner, hashed; each is deleted when used.
      CREATE TABLE recovery_codes (
        owner_id  INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        code_hash TEXT    NOT NULL,
        PRIMARY KEY (owner_id, code_hash)
      ) WITHOUT ROWID;
      -- WebAuthn credentials (passkeys): the credential id and COSE public key (base64url).
      CREATE TABLE passkeys (
        id         TEXT    NOT NULL PRIMARY KEY,
        owner_id   INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        public_key TEXT    NOT NULL,
        counter    INTEGER NOT NULL DEFAULT 0,
        transports TEXT    NOT NULL DEFAULT '',
        name       TEXT    NOT NULL DEFAULT '',
        created    INTEGER NOT NULL,
        last_used  INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX passkeys_owner ON passkeys (owner_id);
      -- Vehicles shared with other users: 'view' reads, 'control' also sends commands.
      CREATE TABLE shares (
        vehicle_id TEXT    NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
        user_id    INTEGER NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
        access     TEXT    NOT NULL CHECK (access IN ('view', 'control')),
        created    INTEGER NOT NULL,
        PRIMARY KEY (vehicle_id, user_id)
      ) WITHOUT ROWID;
      CREATE INDEX shares_user ON shares (user_id);
    `,
  },
  {
    description: 'account audit log and sign-in challenges',
    sql: `
      -- What was done to accounts, vehicles and shares, by whom (the Admin section's audit log;
      -- issue 31). detail is a JSON object without secrets.
      CREATE TABLE audit_log (
        id     INTEGER PRIMARY KEY AUTOINCREMENT,
        time   INTEGER NOT NULL,
        action TEXT    NOT NULL,
        actor  TEXT    NOT NULL,
        via    TEXT    NOT NULL,
        target TEXT    NOT NULL DEFAULT '',
        detail TEXT    NOT NULL DEFAULT '{}'
      );
      CREATE INDEX audit_log_time ON audit_log (time);
      -- Short-lived challenges of a sign-in or enrolment in several steps (WebAuthn), kept in the
      -- database so that any node of a cluster can finish what another began.
      CREATE TABLE auth_challenges (
        id        TEXT    NOT NULL PRIMARY KEY,
        owner_id  INTEGER REFERENCES owners (id) ON DELETE CASCADE,
        purpose   TEXT    NOT NULL,
        challenge TEXT    NOT NULL,
        expires   INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX auth_challenges_expires ON auth_challenges (expires);
    `,
  },
] as const;
