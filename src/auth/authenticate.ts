/**
 * The one credential check of vts (docs/protocol/http-api-v2.md §3.2): a user name with either the account
 * password (rights: the account's, `*` by default) or one of that user's API tokens (rights: the
 * token's permit). Used by the MP scheme-1 login, MQTT and the HTTP API.
 *
 * An account may be refused although its secret is right (docs/accounts.md): disabled by the
 * operator, signed up but not verified yet, or (its owner's choice) taking API tokens only on the
 * API v2, MP and MQTT. `authenticateUser` answers such a login like a wrong secret; the dashboard's
 * sign-in asks `verifySecret` and `refusal` to say which it is.
 */
import { hashApiToken, looksLikeApiToken } from './api-token.js';
import { hashPassword, needsRehash } from './password.js';
import type { PasswordChecker } from './password-checker.js';
import type { Owner, Store } from '../store/store.js';

export interface Authenticated {
  owner: Owner;
  /** The rights this login carries. */
  permit: string;
  via: 'password' | 'token';
  /** For a token login: the token's hash (its identity). */
  tokenHash?: string;
}

/**
 * Where a login is used: `api` (the API v2, MP, MQTT, `/mqapi`), where an owner may allow API
 * tokens only, or `web` (the dashboard's sign-in, which has its own second factor).
 */
export type LoginUse = 'api' | 'web';

/** Why a login with a right secret is refused: an error code of the catalogue. */
export type Refusal = 'VTS_ERR_ACCOUNT_DISABLED' | 'VTS_ERR_UNVERIFIED' | 'VTS_ERR_AUTH';

/** Whether a login with a right secret may proceed (null) or why not. */
export function refusal(auth: Authenticated, use: LoginUse): Refusal | null {
  if (auth.owner.disabled) return 'VTS_ERR_ACCOUNT_DISABLED';
  if (!auth.owner.verified) return 'VTS_ERR_UNVERIFIED';
  if (use === 'api' && auth.via === 'password' && !auth.owner.apiPasswords) return 'VTS_ERR_AUTH';
  return null;
}

/**
 * The owner when `secret` is the account password or one of the user's tokens and the account may
 * log in for `use`, else null. Call it through the login guard (src/auth/login-guard.ts), which
 * counts the attempt first.
 */
export async function authenticateUser(
  store: Store,
  passwords: PasswordChecker,
  username: string,
  secret: string,
  nowMs: number,
  use: LoginUse = 'api',
): Promise<Authenticated | null> {
  const auth = await verifySecret(store, passwords, username, secret, nowMs);
  return auth && refusal(auth, use) === null ? auth : null;
}

/**
 * The owner when `secret` is the account password or one of the user's tokens, else null,
 * whatever the account's state: the caller asks `refusal` next.
 */
export async function verifySecret(
  store: Store,
  passwords: PasswordChecker,
  username: string,
  secret: string,
  nowMs: number,
): Promise<Authenticated | null> {
  if (username === '' || secret === '') return null;
  const owner = await store.getOwnerByName(username);
  if (!owner) return passwords.verifyNobody(secret).then(() => null);
  const { passwordHash, ...plain } = owner;
  if (looksLikeApiToken(secret)) {
    const tokenHash = hashApiToken(secret.toLowerCase());
    const token = await store.findApiToken(owner.id, tokenHash);
    if (token) {
      store.touchApiToken(owner.id, tokenHash, Math.floor(nowMs / 1000));
      return { owner: plain, permit: token.permit, via: 'token', tokenHash };
    }
  }
  if (!(await passwords.verify(username, secret, owner.id, passwordHash, nowMs))) return null;
  // a hash brought over from a reference server: vts's own from now on (unless the password was
  // changed meanwhile); the login stands if that fails, and the next one tries again
  if (needsRehash(passwordHash)) {
    await passwords.queue
      .run(() => hashPassword(secret))
      .then((hash) => store.setOwnerPassword(owner.name, hash, passwordHash))
      .catch(() => undefined);
  }
  return { owner: plain, permit: owner.rights, via: 'password' };
}
