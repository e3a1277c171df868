/**
 * Drupal 7 password hashes (`$S$…`), as the reference server's AuthDrupal checks them
 * (docs/protocol/http-api-v2.md §3.2): accounts imported from a reference server (`vts import`) keep the hash
 * they had, log in with the password they had, and get vts's own hash at their first login.
 *
 * Format: `$S$`, one character giving log2 of the iteration count (in the alphabet below), an
 * 8-character salt, then the hash: h = SHA-512(salt ‖ password), then `count` times
 * h = SHA-512(h ‖ password), encoded in Drupal's base64 and cut with the prefix to 55 characters.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Drupal's bounds of log2 of the iteration count (DRUPAL_MIN_HASH_COUNT, DRUPAL_MAX_HASH_COUNT). */
const MIN_LOG2 = 7;
const MAX_LOG2 = 30;
/** DRUPAL_HASH_LENGTH: what is stored and compared. */
const HASH_LENGTH = 55;
/** Iterations between two turns of the event loop (a check of 2^15 takes about 40 ms of CPU). */
const CHUNK = 2048;

/** Whether `stored` is a Drupal 7 hash (vts verifies it, and replaces it at the next login). */
export function isDrupalHash(stored: string): boolean {
  if (stored.length !== HASH_LENGTH || !/^\$S\$[./0-9A-Za-z]+$/.test(stored)) return false;
  const log2 = ITOA64.indexOf(stored[3]!);
  return log2 >= MIN_LOG2 && log2 <= MAX_LOG2;
}

/** Drupal's `_password_base64_encode`. */
export function drupalBase64(input: Uint8Array): string {
  let out = '';
  let i = 0;
  const count = input.length;
  do {
    let value = input[i++]!;
    out += ITOA64[value & 0x3f];
    if (i < count) value |= input[i]! << 8;
    out += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i]! << 16;
    out += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    out += ITOA64[(value >> 18) & 0x3f];
  } while (i < count);
  return out;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Whether `password` is the one `stored` (a Drupal 7 hash) was made from; false for a hash that
 * is not one. The iterations run in chunks, with the event loop turning between them.
 */
export async function verifyDrupalHash(password: string, stored: string): Promise<boolean> {
  if (!isDrupalHash(stored)) return false;
  const pw = Buffer.from(password, 'utf8');
  let left = 2 ** ITOA64.indexOf(stored[3]!);
  let h = createHash('sha512').update(stored.slice(4, 12)).update(pw).digest();
  while (left > 0) {
    for (let n = Math.min(CHUNK, left); n > 0; n--, left--) h = createHash('sha512').update(h).update(pw).digest();
    if (left > 0) await turn();
  }
  const computed = Buffer.from((stored.slice(0, 12) + drupalBase64(h)).slice(0, HASH_LENGTH));
  const expected = Buffer.from(stored);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
