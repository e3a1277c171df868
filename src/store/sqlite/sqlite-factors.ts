/**
 * Second factors on SQLite (FactorsStore, src/store/factors-store.ts): the owners' TOTP and
 * API-password columns, recovery_codes, passkeys and auth_challenges. Direct writes on the store's
 * connection (synchronous=FULL); a change of an owner's flags empties the owners' read cache
 * (every login reads the owner from it).
 */
import type Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import {
  PASSKEY_COLUMNS,
  toChallenge,
  toPasskey,
  type AuthChallenge,
  type ChallengeRow,
  type FactorsStore,
  type Passkey,
  type PasskeyRow,
  type TotpState,
} from '../factors-store.js';
import type { SqliteCaches } from './sqlite-caches.js';
import { isUniqueViolation } from './sqlite-errors.js';

function prepareStatements(db: Database.Database) {
  return {
    apiPasswords: db.prepare<[number, number]>('UPDATE owners SET api_passwords = ? WHERE id = ?'),
    totp: db.prepare<[number], { totp_secret: string | null; totp_enabled: number; totp_step: number }>(
      'SELECT totp_secret, totp_enabled, totp_step FROM owners WHERE id = ?',
    ),
    begin: db.prepare<[string, number]>('UPDATE owners SET totp_secret = ?, totp_step = 0 WHERE id = ? AND totp_enabled = 0'),
    enable: db.prepare<[number, number]>('UPDATE owners SET totp_enabled = 1, totp_step = ? WHERE id = ? AND totp_enabled = 0 AND totp_secret IS NOT NULL'),
    disable: db.prepare<[number]>('UPDATE owners SET totp_secret = NULL, totp_enabled = 0, totp_step = 0 WHERE id = ?'),
    useStep: db.prepare<[number, number, number]>('UPDATE owners SET totp_step = ? WHERE id = ? AND totp_step < ?'),
    dropCodes: db.prepare<[number]>('DELETE FROM recovery_codes WHERE owner_id = ?'),
    addCode: db.prepare<[number, string]>('INSERT OR IGNORE INTO recovery_codes (owner_id, code_hash) VALUES (?, ?)'),
    useCode: db.prepare<[number, string]>('DELETE FROM recovery_codes WHERE owner_id = ? AND code_hash = ?'),
    countCodes: db.prepare<[number], number>('SELECT count(*) FROM recovery_codes WHERE owner_id = ?').pluck(),
    addPasskey: db.prepare<[string, number, string, number, string, string, number]>(
      'INSERT INTO passkeys (id, owner_id, public_key, counter, transports, name, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    passkey: db.prepare<[string], PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE id = ?`),
    passkeys: db.prepare<[number], PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE owner_id = ? ORDER BY created, id`),
    rename: db.prepare<[string, number, string]>('UPDATE passkeys SET name = ? WHERE owner_id = ? AND id = ?'),
    removePasskey: db.prepare<[number, string]>('DELETE FROM passkeys WHERE owner_id = ? AND id = ?'),
    usePasskey: db.prepare<[number, number, string]>('UPDATE passkeys SET counter = ?, last_used = ? WHERE id = ?'),
    sweep: db.prepare<[number]>('DELETE FROM auth_challenges WHERE expires < ?'),
    putChallenge: db.prepare<[string, number | null, string, string, number]>(
      'INSERT INTO auth_challenges (id, owner_id, purpose, challenge, expires) VALUES (?, ?, ?, ?, ?)',
    ),
    takeChallenge: db.prepare<[string, string], ChallengeRow>(
      'DELETE FROM auth_challenges WHERE id = ? AND purpose = ? RETURNING id, owner_id, purpose, challenge, expires',
    ),
  };
}

export class SqliteFactorsStore implements FactorsStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly caches: SqliteCaches,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
  }

  async setApiPasswords(ownerId: number, allowed: boolean): Promise<boolean> {
    this.open();
    this.caches.owners.clear();
    return this.s.apiPasswords.run(allowed ? 1 : 0, ownerId).changes > 0;
  }

  async getTotp(ownerId: number): Promise<TotpState | undefined> {
    this.open();
    const r = this.s.totp.get(ownerId);
    return r && { secret: r.totp_secret, enabled: r.totp_enabled === 1, step: r.totp_step };
  }

  async beginTotp(ownerId: number, sealedSecret: string): Promise<boolean> {
    this.open();
    return this.s.begin.run(sealedSecret, ownerId).changes > 0;
  }

  async enableTotp(ownerId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean> {
    this.open();
    this.caches.owners.clear();
    return this.db.transaction(() => {
      if (this.s.enable.run(step, ownerId).changes === 0) return false;
      this.s.dropCodes.run(ownerId);
      for (const h of recoveryHashes) this.s.addCode.run(ownerId, h);
      return true;
    })();
  }

  async disableTotp(ownerId: number): Promise<void> {
    this.open();
    this.caches.owners.clear();
    this.db.transaction(() => {
      this.s.disable.run(ownerId);
      this.s.dropCodes.run(ownerId);
    })();
  }

  async useTotpStep(ownerId: number, step: number): Promise<boolean> {
    this.open();
    return this.s.useStep.run(step, ownerId, step).changes > 0;
  }

  async useRecoveryCode(ownerId: number, codeHash: string): Promise<boolean> {
    this.open();
    return this.s.useCode.run(ownerId, codeHash).changes > 0;
  }

  async countRecoveryCodes(ownerId: number): Promise<number> {
    this.open();
    return this.s.countCodes.get(ownerId)!;
  }

  async addPasskey(p: Passkey): Promise<void> {
    this.open();
    try {
      this.s.addPasskey.run(p.id, p.ownerId, p.publicKey, p.counter, p.transports.join(','), p.name, p.created);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_CONFLICT', 'that passkey is registered already');
      throw err;
    }
  }

  async getPasskey(id: string): Promise<Passkey | undefined> {
    this.open();
    const r = this.s.passkey.get(id);
    return r && toPasskey(r);
  }

  async listPasskeys(ownerId: number): Promise<Passkey[]> {
    this.open();
    return this.s.passkeys.all(ownerId).map(toPasskey);
  }

  async renamePasskey(ownerId: number, id: string, name: string): Promise<boolean> {
    this.open();
    return this.s.rename.run(name, ownerId, id).changes > 0;
  }

  async removePasskey(ownerId: number, id: string): Promise<boolean> {
    this.open();
    return this.s.removePasskey.run(ownerId, id).changes > 0;
  }

  async usePasskey(id: string, counter: number, time: number): Promise<void> {
    this.open();
    this.s.usePasskey.run(counter, time, id);
  }

  async putChallenge(c: AuthChallenge, now: number): Promise<void> {
    this.open();
    this.s.sweep.run(now);
    this.s.putChallenge.run(c.id, c.ownerId, c.purpose, c.challenge, c.expires);
  }

  async takeChallenge(id: string, purpose: AuthChallenge['purpose'], now: number): Promise<AuthChallenge | undefined> {
    this.open();
    const r = this.s.takeChallenge.get(id, purpose);
    return r && Number(r.expires) >= now ? toChallenge(r) : undefined;
  }
}
