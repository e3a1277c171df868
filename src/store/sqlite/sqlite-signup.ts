/**
 * Sign-up and recovery on SQLite (SignupStore, src/store/signup-store.ts): signed-up owners,
 * account tokens and invitation codes. Direct writes on the store's connection; the owner cache
 * (src/store/sqlite/sqlite-caches.ts) is emptied when an owner changes.
 */
import type Database from 'better-sqlite3';
import { toOwner, type OwnerRow } from '../rows.js';
import type { OwnerWithSecret } from '../types.js';
import { toInvite, type AccountToken, type AccountTokenPurpose, type Invite, type InviteRow, type NewOwnerResult, type SignupStore } from '../signup-store.js';
import type { SqliteCaches } from './sqlite-caches.js';
import { isUniqueViolation } from './sqlite-errors.js';

const OWNER_COLUMNS = 'id, name, rights, created, password_hash, email, verified, disabled, admin, api_passwords, totp_enabled';

function prepareStatements(db: Database.Database) {
  return {
    nameTaken: db.prepare<[string], number>('SELECT 1 FROM owners WHERE name = ?').pluck(),
    emailTaken: db.prepare<[string], number>('SELECT 1 FROM owners WHERE email = ?').pluck(),
    addOwner: db.prepare<[string, string, string, number], OwnerRow>(
      `INSERT INTO owners (name, password_hash, email, verified, rights, created) VALUES (?, ?, ?, 0, '*', ?) RETURNING ${OWNER_COLUMNS}`,
    ),
    byEmail: db.prepare<[string], OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners WHERE email = ?`),
    setVerified: db.prepare<[number]>('UPDATE owners SET verified = 1 WHERE id = ?'),
    purgeUnverified: db.prepare<[number, number], string>(
      `DELETE FROM owners WHERE id IN (
         SELECT o.id FROM owners o WHERE o.verified = 0 AND o.email IS NOT NULL AND o.created < ?
           AND NOT EXISTS (SELECT 1 FROM vehicles v WHERE v.owner_id = o.id) LIMIT ?)
       RETURNING name`,
    ).pluck(),
    purgeTokens: db.prepare<[number]>('DELETE FROM account_tokens WHERE expires < ?'),
    addToken: db.prepare<[string, number, string, number, number]>(
      'INSERT INTO account_tokens (token_hash, owner_id, purpose, expires, created) VALUES (?, ?, ?, ?, ?)',
    ),
    takeToken: db.prepare<[string], { owner_id: number; purpose: string; expires: number }>(
      'DELETE FROM account_tokens WHERE token_hash = ? RETURNING owner_id, purpose, expires',
    ),
    removeTokens: db.prepare<[number, string]>('DELETE FROM account_tokens WHERE owner_id = ? AND purpose = ?'),
    addInvite: db.prepare<[string, number, number | null, number]>('INSERT INTO invites (code_hash, uses_left, expires, created) VALUES (?, ?, ?, ?)'),
    listInvites: db.prepare<[], InviteRow>('SELECT code_hash, uses_left, expires, created FROM invites ORDER BY created DESC, code_hash'),
    removeInvites: db.prepare<[string, string]>('DELETE FROM invites WHERE substr(code_hash, 1, length(?)) = ?'),
    useInvite: db.prepare<[string, number], number>(
      'UPDATE invites SET uses_left = uses_left - 1 WHERE code_hash = ? AND uses_left > 0 AND (expires IS NULL OR expires >= ?) RETURNING uses_left',
    ).pluck(),
    dropUsedInvite: db.prepare<[string]>('DELETE FROM invites WHERE code_hash = ? AND uses_left <= 0'),
  };
}

export class SqliteSignupStore implements SignupStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly caches: SqliteCaches,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
  }

  async addUnverifiedOwner(name: string, passwordHash: string, email: string, created: number): Promise<NewOwnerResult> {
    this.open();
    const s = this.s;
    const add = this.db.transaction((): NewOwnerResult => {
      if (s.nameTaken.get(name) !== undefined) return { taken: 'name' };
      if (s.emailTaken.get(email) !== undefined) return { taken: 'email' };
      return { owner: toOwner(s.addOwner.get(name, passwordHash, email, created)!) };
    });
    try {
      return add.immediate();
    } catch (err) {
      // another process added one meanwhile (the transaction is immediate: hardly ever)
      if (isUniqueViolation(err)) return { taken: s.nameTaken.get(name) !== undefined ? 'name' : 'email' };
      throw err;
    }
  }

  async ownerByEmail(email: string): Promise<OwnerWithSecret | undefined> {
    this.open();
    const r = this.s.byEmail.get(email);
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  async setVerified(ownerId: number): Promise<boolean> {
    this.open();
    const changed = this.s.setVerified.run(ownerId).changes > 0;
    this.caches.owners.clear();
    return changed;
  }

  async purgeUnverified(before: number, limit: number): Promise<string[]> {
    this.open();
    const names = this.s.purgeUnverified.all(before, limit);
    if (names.length > 0) this.caches.clear();
    return names;
  }

  async addToken(t: AccountToken): Promise<void> {
    this.open();
    this.s.purgeTokens.run(t.created);
    this.s.addToken.run(t.tokenHash, t.ownerId, t.purpose, t.expires, t.created);
  }

  async takeToken(tokenHash: string, purpose: AccountTokenPurpose, now: number): Promise<number | undefined> {
    this.open();
    const r = this.s.takeToken.get(tokenHash);
    return r && r.purpose === purpose && r.expires >= now ? r.owner_id : undefined;
  }

  async removeTokens(ownerId: number, purpose: AccountTokenPurpose): Promise<void> {
    this.open();
    this.s.removeTokens.run(ownerId, purpose);
  }

  async addInvite(i: Invite): Promise<void> {
    this.open();
    this.s.addInvite.run(i.codeHash, i.usesLeft, i.expires, i.created);
  }

  async listInvites(): Promise<Invite[]> {
    this.open();
    return this.s.listInvites.all().map(toInvite);
  }

  async removeInvites(hashPrefix: string): Promise<number> {
    this.open();
    if (hashPrefix === '') return 0;
    return this.s.removeInvites.run(hashPrefix.toLowerCase(), hashPrefix.toLowerCase()).changes;
  }

  async useInvite(codeHash: string, now: number): Promise<boolean> {
    this.open();
    const left = this.s.useInvite.get(codeHash, now);
    if (left === undefined) return false;
    if (left <= 0) this.s.dropUsedInvite.run(codeHash);
    return true;
  }
}
