/**
 * The users' side of the PostgreSQL store: owners, their API tokens and the auto-provisioning
 * records, as direct writes and reads of the PgStore (src/store/postgres/pg-connection.ts). A user
 * name is matched as the unique index folds it (ASCII only, as SQLite's NOCASE).
 */
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
import { changedRows, type PgAccess } from './pg-connection.js';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.js';

const OWNER = 'id, name, rights, created, password_hash, email, verified, disabled, admin, api_passwords, totp_enabled';
const TOKEN = 'owner_id, token_hash, application, purpose, permit, created, last_used';
/** A user name as the unique index folds it (ASCII only, as SQLite's NOCASE). */
const NAME_IS = 'lower(name) = lower($1::text COLLATE "C")';

export class PgAccounts {
  constructor(private readonly pg: PgAccess) {}

  // --- owners ---

  async addOwner(name: string, passwordHash: string, rights: string): Promise<Owner> {
    try {
      const { rows } = await this.pg.change<OwnerRow>(
        `INSERT INTO owners (name, password_hash, rights, created) VALUES ($1, $2, $3, $4) RETURNING ${OWNER}`,
        [name, passwordHash, rights, nowSeconds()],
      );
      return toOwner(rows[0]!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_USER', name);
      throw err;
    }
  }

  async getOwnerByName(name: string): Promise<OwnerWithSecret | undefined> {
    const r = (await this.pg.read<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE ${NAME_IS}`, [name]))[0];
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  async getOwnerById(id: number): Promise<Owner | undefined> {
    const r = (await this.pg.read<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE id = $1`, [id]))[0];
    return r && toOwner(r);
  }

  async listOwners(): Promise<Owner[]> {
    return (await this.pg.read<OwnerRow>(`SELECT ${OWNER} FROM owners ORDER BY lower(name), id`, [])).map(toOwner);
  }

  async setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean> {
    if (expected !== undefined) {
      return (await changedRows(this.pg, `UPDATE owners SET password_hash = $2 WHERE ${NAME_IS} AND password_hash = $3`, [name, passwordHash, expected])) > 0;
    }
    return (await changedRows(this.pg, `UPDATE owners SET password_hash = $2 WHERE ${NAME_IS}`, [name, passwordHash])) > 0;
  }

  async setOwnerRights(name: string, rights: string): Promise<boolean> {
    return (await changedRows(this.pg, `UPDATE owners SET rights = $2 WHERE ${NAME_IS}`, [name, rights])) > 0;
  }

  async setOwnerFlags(name: string, flags: OwnerFlags): Promise<boolean> {
    const set = FLAG_COLUMNS.filter(([key]) => flags[key] !== undefined);
    if (set.length === 0) return (await this.pg.read(`SELECT id FROM owners WHERE ${NAME_IS}`, [name])).length > 0;
    const sql = `UPDATE owners SET ${set.map(([, column], k) => `${column} = $${k + 2}`).join(', ')} WHERE ${NAME_IS}`;
    return (await changedRows(this.pg, sql, [name, ...set.map(([key]) => (flags[key] ? 1 : 0))])) > 0;
  }

  /** Removes the owner with its tokens and push subscriptions; returns its id, undefined when there is none. */
  async removeOwner(name: string): Promise<number | undefined> {
    return this.pg
      .transaction(async (c): Promise<number | undefined> => {
        const owner = (await c.query<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE ${NAME_IS} FOR UPDATE`, [name])).rows[0];
        if (!owner) return undefined;
        const n = (await c.query<{ n: number }>('SELECT count(*) AS n FROM vehicles WHERE owner_id = $1', [owner.id])).rows[0]!.n;
        if (n > 0) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', `${owner.name} owns ${n} vehicle(s)`);
        // tokens and push subscriptions go by ON DELETE CASCADE, auto-provisioning records are kept (SET NULL)
        await c.query('DELETE FROM owners WHERE id = $1', [owner.id]);
        return owner.id;
      })
      .catch((err: unknown) => {
        // a vehicle added by another process meanwhile
        if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', name);
        throw err;
      });
  }

  // --- API tokens ---

  async addApiToken(t: ApiToken): Promise<void> {
    try {
      await changedRows(this.pg, `INSERT INTO api_tokens (${TOKEN}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        t.ownerId,
        t.tokenHash,
        t.application,
        t.purpose,
        t.permit,
        t.created,
        t.lastUsed,
      ]);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${t.ownerId}`);
      throw err;
    }
  }

  async findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined> {
    const r = (await this.pg.read<ApiTokenRow>(`SELECT ${TOKEN} FROM api_tokens WHERE owner_id = $1 AND token_hash = $2`, [ownerId, tokenHash]))[0];
    return r && toApiToken(r);
  }

  async listApiTokens(ownerId: number): Promise<ApiToken[]> {
    const rows = await this.pg.read<ApiTokenRow>(`SELECT ${TOKEN} FROM api_tokens WHERE owner_id = $1 ORDER BY created, token_hash`, [ownerId]);
    return rows.map(toApiToken);
  }

  async removeApiToken(ownerId: number, tokenHash: string): Promise<boolean> {
    return (await changedRows(this.pg, 'DELETE FROM api_tokens WHERE owner_id = $1 AND token_hash = $2', [ownerId, tokenHash])) > 0;
  }

  // --- auto-provisioning ---

  async getAutoProvision(key: string): Promise<AutoProvisionRecord | undefined> {
    const r = (await this.pg.read<AutoProvisionRow>('SELECT key, server_token, server_digest, message, owner_id FROM autoprovision WHERE key = $1', [key]))[0];
    return r && toAutoProvision(r);
  }

  async putAutoProvision(rec: AutoProvisionRecord): Promise<void> {
    try {
      await changedRows(
        this.pg,
        `INSERT INTO autoprovision (key, server_token, server_digest, message, owner_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET server_token = excluded.server_token,
           server_digest = excluded.server_digest, message = excluded.message, owner_id = excluded.owner_id`,
        [rec.key, rec.serverToken, rec.serverDigest, rec.message, rec.ownerId],
      );
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${rec.ownerId}`);
      throw err;
    }
  }

  async removeAutoProvision(key: string): Promise<boolean> {
    return (await changedRows(this.pg, 'DELETE FROM autoprovision WHERE key = $1', [key])) > 0;
  }
}
