/**
 * The TOTP second factor of an owner (docs/accounts.md "A second factor"): a new secret (sealed at
 * rest with the server's key for sealed secrets, the key of the ABRP tokens: src/abrp/token-key.ts,
 * bound to its owner), ten recovery codes (shown once, stored as sha256 like the API tokens), and
 * the one check of a code at sign-in or to disable it: a TOTP code of a step not used yet (the step
 * is taken in the store, so a code is accepted once on every node), or a recovery code, used up.
 */
import { createHash, randomBytes } from 'node:crypto';
import { base32Decode, base32Encode, looksLikeTotp, matchTotp } from '../core/auth/totp.js';
import { seal, unseal } from '../core/crypto/sealed-secret.js';
import type { Store } from '../store/store.js';

export const RECOVERY_CODES = 10;
const SECRET_BYTES = 20;
/** Recovery codes: letters and digits that cannot be mistaken for one another. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** The row a sealed TOTP secret belongs to: a secret copied to another owner does not open. */
const sealContext = (ownerId: number): string => `totp:${ownerId}`;

/** A new random TOTP secret, base32 (160 bits, as RFC 4226 recommends). */
export const newTotpSecret = (): string => base32Encode(randomBytes(SECRET_BYTES));

export const sealTotpSecret = (key: Buffer, secret: string, ownerId: number): string => seal(key, secret, sealContext(ownerId));

/** The secret's bytes, or null when it does not open with this key (another key: the operator changed it). */
export function openTotpSecret(key: Buffer, sealed: string, ownerId: number): Uint8Array | null {
  const text = unseal(key, sealed, sealContext(ownerId));
  return text === null ? null : base32Decode(text);
}

/** Ten recovery codes, `xxxx-xxxx-xxxx` (about 59 bits each). */
export function newRecoveryCodes(random: (n: number) => Uint8Array = randomBytes): string[] {
  const out: string[] = [];
  for (let n = 0; n < RECOVERY_CODES; n++) {
    const bytes = random(12);
    let code = '';
    for (let i = 0; i < 12; i++) code += RECOVERY_ALPHABET[bytes[i]! % RECOVERY_ALPHABET.length];
    out.push(`${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`);
  }
  return out;
}

/** The stored form of a recovery code: sha256 of its letters (either case, hyphens and blanks ignored). */
export const hashRecoveryCode = (code: string): string =>
  createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase(), 'utf8').digest('hex');

export type FactorCheck = 'totp' | 'recovery' | null;

/**
 * Whether `code` is the owner's TOTP code of a step not used yet (that step then is used) or one
 * of the owner's recovery codes (then used up): which it was, or null. Call it through the login
 * guard, as the sign-in does.
 */
export async function checkSecondFactor(store: Store, key: Buffer, ownerId: number, code: string, nowMs: number): Promise<FactorCheck> {
  const given = code.trim();
  if (given === '' || given.length > 64) return null;
  if (looksLikeTotp(given)) {
    const totp = await store.factors.getTotp(ownerId);
    if (!totp?.enabled || totp.secret === null) return null;
    const secret = openTotpSecret(key, totp.secret, ownerId);
    if (!secret) return null;
    const step = matchTotp(secret, given, nowMs, totp.step);
    return step !== null && (await store.factors.useTotpStep(ownerId, step)) ? 'totp' : null;
  }
  return (await store.factors.useRecoveryCode(ownerId, hashRecoveryCode(given))) ? 'recovery' : null;
}
