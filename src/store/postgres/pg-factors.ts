/**
 * Second factors on PostgreSQL (FactorsStore, src/store/factors-store.ts), as the PgStore's direct
 * writes and reads. Shared by the nodes of a cluster: a TOTP step and a recovery code are used up
 * by one conditional statement, so of two nodes given the same code at once only one accepts it.
 */
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
import { changedRows, type PgAccess } from './pg-connection.js';
import { isUniqueViolation } from './pg-errors.js';

export class PgFactorsStore implements FactorsStore {
  constructor(private readonly db: PgAccess) {}

  async setApiPasswords(ownerId: number, allowed: boolean): Promise<boolean> {
    return (await changedRows(this.db, 'UPDATE owners SET api_passwords = $1 WHERE id = $2', [allowed ? 1 : 0, ownerId])) > 0;
  }

  async getTotp(ownerId: number): Promise<TotpState | undefined> {
    const [r] = await this.db.read<{ totp_secret: string | null; totp_enabled: number; totp_step: string | number }>(
      'SELECT totp_secret, totp_enabled, totp_step FROM owners WHERE id = $1',
      [ownerId],
    );
    return r && { secret: r.totp_secret, enabled: Number(r.totp_enabled) === 1, step: Number(r.totp_step) };
  }

  async beginTotp(ownerId: number, sealedSecret: string): Promise<boolean> {
    return (await changedRows(this.db, 'UPDATE owners SET totp_secret = $1, totp_step = 0 WHERE id = $2 AND totp_enabled = 0', [sealedSecret, ownerId])) > 0;
  }

  async enableTotp(ownerId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean> {
    return this.db.transaction(async (c) => {
      const done = await c.query('UPDATE owners SET totp_enabled = 1, totp_step = $1 WHERE id = $2 AND totp_enabled = 0 AND totp_secret IS NOT NULL', [step, ownerId]);
      if ((done.rowCount ?? 0) === 0) return false;
      await c.query('DELETE FROM recovery_codes WHERE owner_id = $1', [ownerId]);
      for (const h of recoveryHashes) {
        await c.query('INSERT INTO recovery_codes (owner_id, code_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING', [ownerId, h]);
      }
      return true;
    });
  }

  async disableTotp(ownerId: number): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query('UPDATE owners SET totp_secret = NULL, totp_enabled = 0, totp_step = 0 WHERE id = $1', [ownerId]);
      await c.query('DELETE FROM recovery_codes WHERE owner_id = $1', [ownerId]);
    });
  }

  async useTotpStep(ownerId: number, step: number): Promise<boolean> {
    return (await changedRows(this.db, 'UPDATE owners SET totp_step = $1 WHERE id = $2 AND totp_step < $1', [step, ownerId])) > 0;
  }

  async useRecoveryCode(ownerId: number, codeHash: string): Promise<boolean> {
    return (await changedRows(this.db, 'DELETE FROM recovery_codes WHERE owner_id = $1 AND code_hash = $2', [ownerId, codeHash])) > 0;
  }

  async countRecoveryCodes(ownerId: number): Promise<number> {
    const [r] = await this.db.read<{ n: string | number }>('SELECT count(*) AS n FROM recovery_codes WHERE owner_id = $1', [ownerId]);
    return Number(r?.n ?? 0);
  }

  async addPasskey(p: Passkey): Promise<void> {
    try {
      await changedRows(this.db, 'INSERT INTO passkeys (id, owner_id, public_key, counter, transports, name, created) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        p.id,
        p.ownerId,
        p.publicKey,
        p.counter,
        p.transports.join(','),
        p.name,
        p.created,
      ]);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_CONFLICT', 'that passkey is registered already');
      throw err;
    }
  }

  async getPasskey(id: string): Promise<Passkey | undefined> {
    const [r] = await this.db.read<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE id = $1`, [id]);
    return r && toPasskey(r);
  }

  async listPasskeys(ownerId: number): Promise<Passkey[]> {
    return (await this.db.read<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE owner_id = $1 ORDER BY created, id`, [ownerId])).map(toPasskey);
  }

  async renamePasskey(ownerId: number, id: string, name: string): Promise<boolean> {
    return (await changedRows(this.db, 'UPDATE passkeys SET name = $1 WHERE owner_id = $2 AND id = $3', [name, ownerId, id])) > 0;
  }

  async removePasskey(ownerId: number, id: string): Promise<boolean> {
    return (await changedRows(this.db, 'DELETE FROM passkeys WHERE owner_id = $1 AND id = $2', [ownerId, id])) > 0;
  }

  async usePasskey(id: string, counter: number, time: number): Promise<void> {
    await changedRows(this.db, 'UPDATE passkeys SET counter = $1, last_used = $2 WHERE id = $3', [counter, time, id]);
  }

  async putChallenge(c: AuthChallenge, now: number): Promise<void> {
    await changedRows(this.db, 'DELETE FROM auth_challenges WHERE expires < $1', [now]);
    await changedRows(this.db, 'INSERT INTO auth_challenges (id, owner_id, purpose, challenge, expires) VALUES ($1, $2, $3, $4, $5)', [
      c.id,
      c.ownerId,
      c.purpose,
      c.challenge,
      c.expires,
    ]);
  }

  async takeChallenge(id: string, purpose: AuthChallenge['purpose'], now: number): Promise<AuthChallenge | undefined> {
    const { rows } = await this.db.change<ChallengeRow>(
      'DELETE FROM auth_challenges WHERE id = $1 AND purpose = $2 RETURNING id, owner_id, purpose, challenge, expires',
      [id, purpose],
    );
    const r = rows[0];
    return r && Number(r.expires) >= now ? toChallenge(r) : undefined;
  }
}
