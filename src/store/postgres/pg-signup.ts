/**
 * Sign-up and recovery on PostgreSQL (SignupStore, src/store/signup-store.ts): signed-up owners,
 * account tokens and invitation codes, as the PgStore's direct writes and reads. A name or an
 * address is matched as the unique indexes fold it (lower(), ASCII only for the name).
 */
import { toOwner, type OwnerRow } from '../rows.js';
import type { OwnerWithSecret } from '../types.js';
import { toInvite, type AccountToken, type AccountTokenPurpose, type Invite, type InviteRow, type NewOwnerResult, type SignupStore } from '../signup-store.js';
import { changedRows, type PgAccess } from './pg-connection.js';
import { isUniqueViolation } from './pg-errors.js';

const OWNER = 'id, name, rights, created, password_hash, email, verified, disabled, admin, api_passwords, totp_enabled';
const NAME_IS = 'lower(name) = lower($1::text COLLATE "C")';
const EMAIL_IS = 'lower(email) = lower($1::text)';

export class PgSignupStore implements SignupStore {
  constructor(private readonly pg: PgAccess) {}

  private async taken(name: string, email: string): Promise<'name' | 'email' | null> {
    if ((await this.pg.read(`SELECT 1 FROM owners WHERE ${NAME_IS}`, [name])).length > 0) return 'name';
    if ((await this.pg.read(`SELECT 1 FROM owners WHERE ${EMAIL_IS}`, [email])).length > 0) return 'email';
    return null;
  }

  async addUnverifiedOwner(name: string, passwordHash: string, email: string, created: number): Promise<NewOwnerResult> {
    const before = await this.taken(name, email);
    if (before) return { taken: before };
    try {
      const { rows } = await this.pg.change<OwnerRow>(
        `INSERT INTO owners (name, password_hash, email, verified, rights, created) VALUES ($1, $2, $3, 0, '*', $4) RETURNING ${OWNER}`,
        [name, passwordHash, email, created],
      );
      return { owner: toOwner(rows[0]!) };
    } catch (err) {
      // another node added one meanwhile
      if (isUniqueViolation(err)) return { taken: (await this.taken(name, email)) ?? 'name' };
      throw err;
    }
  }

  async ownerByEmail(email: string): Promise<OwnerWithSecret | undefined> {
    const r = (await this.pg.read<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE ${EMAIL_IS}`, [email]))[0];
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  async setVerified(ownerId: number): Promise<boolean> {
    return (await changedRows(this.pg, 'UPDATE owners SET verified = 1 WHERE id = $1', [ownerId])) > 0;
  }

  async purgeUnverified(before: number, limit: number): Promise<string[]> {
    const { rows } = await this.pg.change<{ name: string }>(
      `DELETE FROM owners WHERE id IN (
         SELECT o.id FROM owners o WHERE o.verified = 0 AND o.email IS NOT NULL AND o.created < $1
           AND NOT EXISTS (SELECT 1 FROM vehicles v WHERE v.owner_id = o.id) LIMIT $2)
       RETURNING name`,
      [before, limit],
    );
    return rows.map((r) => r.name);
  }

  async addToken(t: AccountToken): Promise<void> {
    await changedRows(this.pg, 'DELETE FROM account_tokens WHERE expires < $1', [t.created]);
    await changedRows(this.pg, 'INSERT INTO account_tokens (token_hash, owner_id, purpose, expires, created) VALUES ($1, $2, $3, $4, $5)', [
      t.tokenHash,
      t.ownerId,
      t.purpose,
      t.expires,
      t.created,
    ]);
  }

  async takeToken(tokenHash: string, purpose: AccountTokenPurpose, now: number): Promise<number | undefined> {
    const { rows } = await this.pg.change<{ owner_id: number; purpose: string; expires: number }>(
      'DELETE FROM account_tokens WHERE token_hash = $1 RETURNING owner_id, purpose, expires',
      [tokenHash],
    );
    const r = rows[0];
    return r && r.purpose === purpose && Number(r.expires) >= now ? Number(r.owner_id) : undefined;
  }

  async removeTokens(ownerId: number, purpose: AccountTokenPurpose): Promise<void> {
    await changedRows(this.pg, 'DELETE FROM account_tokens WHERE owner_id = $1 AND purpose = $2', [ownerId, purpose]);
  }

  async addInvite(i: Invite): Promise<void> {
    await changedRows(this.pg, 'INSERT INTO invites (code_hash, uses_left, expires, created) VALUES ($1, $2, $3, $4)', [i.codeHash, i.usesLeft, i.expires, i.created]);
  }

  async listInvites(): Promise<Invite[]> {
    return (await this.pg.read<InviteRow>('SELECT code_hash, uses_left, expires, created FROM invites ORDER BY created DESC, code_hash', [])).map(toInvite);
  }

  async removeInvites(hashPrefix: string): Promise<number> {
    if (hashPrefix === '') return 0;
    return changedRows(this.pg, 'DELETE FROM invites WHERE left(code_hash, length($1)) = $1', [hashPrefix.toLowerCase()]);
  }

  async useInvite(codeHash: string, now: number): Promise<boolean> {
    const { rows } = await this.pg.change<{ uses_left: number }>(
      'UPDATE invites SET uses_left = uses_left - 1 WHERE code_hash = $1 AND uses_left > 0 AND (expires IS NULL OR expires >= $2) RETURNING uses_left',
      [codeHash, now],
    );
    const r = rows[0];
    if (!r) return false;
    if (Number(r.uses_left) <= 0) await changedRows(this.pg, 'DELETE FROM invites WHERE code_hash = $1 AND uses_left <= 0', [codeHash]);
    return true;
  }
}
