/**
 * The users' side of the SQLite store: owners, their API tokens and the auto-provisioning
 * records. Direct writes on the store's connection (synchronous=FULL); the owner and token rows
 * every login reads are cached (src/store/sqlite/sqlite-caches.ts). The SqliteStore checks that it
 * is open and waits for buffered writes before it calls in here.
 */
import type Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import {
  FLAG_COLUMNS,
  nowSeconds,
  toApiToken,
  toAutoProvision,
  toOwner,
  type ApiTokenRow,
  type AutoProvisionRow,
  type OwnerRow,
} from '../rows.js';
import type { ApiToken, AutoProvisionRecord, Owner, OwnerFlags, OwnerWithSecret } from '../store.js';
import { tokenKey, type SqliteCaches } from './sqlite-caches.js';
import { isForeignKeyViolation, isUniqueViolation } from './sqlite-errors.js';

const OWNER_COLUMNS = 'id, name, rights, created, password_hash, email, verified, disabled, admin, api_passwords, totp_enabled';
const TOKEN_COLUMNS = 'owner_id, token_hash, application, purpose, permit, created, last_used';

function prepareStatements(db: Database.Database) {
  return {
    // owners
    addOwner: db.prepare<[string, string, string, number], OwnerRow>(
      `INSERT INTO owners (name, password_hash, rights, created) VALUES (?, ?, ?, ?)
       RETURNING ${OWNER_COLUMNS}`,
    ),
    ownerByName: db.prepare<[string], OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners WHERE name = ?`),
    ownerById: db.prepare<[number], OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners WHERE id = ?`),
    listOwners: db.prepare<[], OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners ORDER BY name, id`),
    setOwnerPassword: db.prepare<[string, string]>('UPDATE owners SET password_hash = ? WHERE name = ?'),
    replaceOwnerPassword: db.prepare<[string, string, string]>('UPDATE owners SET password_hash = ? WHERE name = ? AND password_hash = ?'),
    setOwnerRights: db.prepare<[string, string]>('UPDATE owners SET rights = ? WHERE name = ?'),
    countOwnerVehicles: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM vehicles WHERE owner_id = ?'),
    deleteOwnerTokens: db.prepare<[number]>('DELETE FROM api_tokens WHERE owner_id = ?'),
    deleteOwnerPush: db.prepare<[number]>('DELETE FROM push_subscriptions WHERE owner_id = ?'),
    detachOwnerAutoProvision: db.prepare<[number]>('UPDATE autoprovision SET owner_id = NULL WHERE owner_id = ?'),
    deleteOwner: db.prepare<[number]>('DELETE FROM owners WHERE id = ?'),

    // API tokens
    addApiToken: db.prepare<[number, string, string, string, string, number, number | null]>(
      `INSERT INTO api_tokens (${TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    findApiToken: db.prepare<[number, string], ApiTokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE owner_id = ? AND token_hash = ?`,
    ),
    listApiTokens: db.prepare<[number], ApiTokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE owner_id = ? ORDER BY created, token_hash`,
    ),
    removeApiToken: db.prepare<[number, string]>('DELETE FROM api_tokens WHERE owner_id = ? AND token_hash = ?'),

    // auto-provisioning
    getAutoProvision: db.prepare<[string], AutoProvisionRow>(
      'SELECT key, server_token, server_digest, message, owner_id FROM autoprovision WHERE key = ?',
    ),
    putAutoProvision: db.prepare<[string, string, string, string, number | null]>(
      `INSERT INTO autoprovision (key, server_token, server_digest, message, owner_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET server_token = excluded.server_token,
         server_digest = excluded.server_digest, message = excluded.message, owner_id = excluded.owner_id`,
    ),
    removeAutoProvision: db.prepare<[string]>('DELETE FROM autoprovision WHERE key = ?'),
  };
}

/** SQLite's NOCASE: only ASCII letters fold. */
const foldCase = (name: string): string => name.replace(/[A-Z]+/g, (m) => m.toLowerCase());

export class SqliteAccounts {
  private readonly stmt: ReturnType<typeof prepareStatements>;

  constructor(
    private readonly db: Database.Database,
    private readonly caches: SqliteCaches,
  ) {
    this.stmt = prepareStatements(db);
  }

  // --- owners ---

  addOwner(name: string, passwordHash: string, rights: string): Owner {
    try {
      return toOwner(this.stmt.addOwner.get(name, passwordHash, rights, nowSeconds())!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_USER', name);
      throw err;
    }
  }

  ownerByName(name: string): OwnerWithSecret | undefined {
    this.caches.sync();
    const cache = this.caches.owners;
    const key = foldCase(name);
    let r = cache.get(key);
    if (!r) {
      const stamp = cache.stamp();
      r = this.stmt.ownerByName.get(name);
      if (r) cache.set(key, r, stamp);
    }
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  ownerById(id: number): Owner | undefined {
    const r = this.stmt.ownerById.get(id);
    return r && toOwner(r);
  }

  listOwners(): Owner[] {
    return this.stmt.listOwners.all().map(toOwner);
  }

  setOwnerPassword(name: string, passwordHash: string, expected?: string): boolean {
    this.caches.owners.clear();
    if (expected !== undefined) return this.stmt.replaceOwnerPassword.run(passwordHash, name, expected).changes > 0;
    return this.stmt.setOwnerPassword.run(passwordHash, name).changes > 0;
  }

  setOwnerRights(name: string, rights: string): boolean {
    this.caches.owners.clear();
    return this.stmt.setOwnerRights.run(rights, name).changes > 0;
  }

  setOwnerFlags(name: string, flags: OwnerFlags): boolean {
    const set = FLAG_COLUMNS.filter(([key]) => flags[key] !== undefined);
    if (set.length === 0) return this.stmt.ownerByName.get(name) !== undefined;
    this.caches.owners.clear();
    const sql = `UPDATE owners SET ${set.map(([, column]) => `${column} = ?`).join(', ')} WHERE name = ?`;
    return this.db.prepare<(number | string)[]>(sql).run(...set.map(([key]) => (flags[key] ? 1 : 0)), name).changes > 0;
  }

  /** Removes the owner with its tokens and push subscriptions; returns its id, undefined when there is none. */
  removeOwner(name: string): number | undefined {
    const s = this.stmt;
    const ownerId = this.db
      .transaction((): number | undefined => {
        const owner = s.ownerByName.get(name);
        if (!owner) return undefined;
        const n = s.countOwnerVehicles.get(owner.id)!.n;
        if (n > 0) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', `${owner.name} owns ${n} vehicle(s)`);
        s.deleteOwnerTokens.run(owner.id);
        s.deleteOwnerPush.run(owner.id);
        s.detachOwnerAutoProvision.run(owner.id);
        s.deleteOwner.run(owner.id);
        return owner.id;
      })
      .immediate();
    if (ownerId === undefined) return undefined;
    this.caches.owners.clear();
    this.caches.tokens.clear();
    return ownerId;
  }

  // --- API tokens ---

  addApiToken(t: ApiToken): void {
    this.caches.tokens.delete(tokenKey(t.ownerId, t.tokenHash));
    try {
      this.stmt.addApiToken.run(t.ownerId, t.tokenHash, t.application, t.purpose, t.permit, t.created, t.lastUsed);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${t.ownerId}`);
      throw err;
    }
  }

  findApiToken(ownerId: number, tokenHash: string): ApiToken | undefined {
    this.caches.sync();
    const cache = this.caches.tokens;
    const key = tokenKey(ownerId, tokenHash);
    let r = cache.get(key);
    if (r === undefined) {
      const stamp = cache.stamp();
      r = cache.set(key, this.stmt.findApiToken.get(ownerId, tokenHash) ?? null, stamp);
    }
    return r ? toApiToken(r) : undefined;
  }

  listApiTokens(ownerId: number): ApiToken[] {
    return this.stmt.listApiTokens.all(ownerId).map(toApiToken);
  }

  removeApiToken(ownerId: number, tokenHash: string): boolean {
    this.caches.tokens.delete(tokenKey(ownerId, tokenHash));
    return this.stmt.removeApiToken.run(ownerId, tokenHash).changes > 0;
  }

  // --- auto-provisioning ---

  getAutoProvision(key: string): AutoProvisionRecord | undefined {
    const r = this.stmt.getAutoProvision.get(key);
    return r && toAutoProvision(r);
  }

  putAutoProvision(rec: AutoProvisionRecord): void {
    try {
      this.stmt.putAutoProvision.run(rec.key, rec.serverToken, rec.serverDigest, rec.message, rec.ownerId);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${rec.ownerId}`);
      throw err;
    }
  }

  removeAutoProvision(key: string): boolean {
    return this.stmt.removeAutoProvision.run(key).changes > 0;
  }
}
