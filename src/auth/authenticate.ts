/**
 * The one credential check of vts (http-api-v2.md §3.2): a user name with either the account
 * password (rights: the account's, `*` by default) or one of that user's API tokens (rights: the
 * token's permit). Used by the MP scheme-1 login and by the HTTP API.
 */
import { hashApiToken, looksLikeApiToken } from './api-token.js';
import type { CredentialCache } from './credential-cache.js';
import { hashPassword, verifyPassword } from './password.js';
import type { Owner, Store } from '../store/store.js';

export interface Authenticated {
  owner: Owner;
  /** The rights this login carries. */
  permit: string;
  via: 'password' | 'token';
  /** For a token login: the token's hash (its identity). */
  tokenHash?: string;
}

let dummy: Promise<string> | undefined;
/** A hash to verify against when the user does not exist: same cost, so no user enumeration. */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword('not the password of anyone');
  return dummy;
}

export async function authenticateUser(
  store: Store,
  cache: CredentialCache,
  username: string,
  secret: string,
  nowMs: number,
): Promise<Authenticated | null> {
  if (username === '' || secret === '') return null;
  const owner = await store.getOwnerByName(username);
  if (!owner) {
    await verifyPassword(secret, await dummyHash());
    return null;
  }
  const { passwordHash, ...plain } = owner;
  if (looksLikeApiToken(secret)) {
    const tokenHash = hashApiToken(secret.toLowerCase());
    const token = await store.findApiToken(owner.id, tokenHash);
    if (token) {
      store.touchApiToken(owner.id, tokenHash, Math.floor(nowMs / 1000));
      return { owner: plain, permit: token.permit, via: 'token', tokenHash };
    }
  }
  if (cache.has(username, secret, owner.id, passwordHash, nowMs)) return { owner: plain, permit: owner.rights, via: 'password' };
  if (!(await verifyPassword(secret, passwordHash))) return null;
  cache.remember(username, secret, owner.id, passwordHash, nowMs);
  return { owner: plain, permit: owner.rights, via: 'password' };
}
