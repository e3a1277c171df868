/**
 * Password hashing with scrypt (node:crypto). Text form: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`,
 * so the cost can be raised later without breaking stored hashes. A Drupal 7 hash brought over
 * from a reference server (src/auth/drupal-hash.ts) is verified too, and replaced at the next
 * login (`needsRehash`).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { isDrupalHash, verifyDrupalHash } from './drupal-hash.js';

const KEY_LENGTH = 32;
const DEFAULT_COST = { N: 16384, r: 8, p: 1 };

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: 256 * cost.N * cost.r });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether a stored hash is not vts's own (a Drupal 7 hash): it is replaced once the password is known. */
export function needsRehash(stored: string): boolean {
  return isDrupalHash(stored);
}

/** Constant-time check of `password` against a stored hash; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (isDrupalHash(stored)) return verifyDrupalHash(password, stored);
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((v) => Number.isInteger(v) && v > 0) || N > 2 ** 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const key = await scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r });
  return timingSafeEqual(key, expected);
}
