/** HMAC-MD5 digests and random tokens of the MP handshake (docs/protocol/mp.md §4.1–§4.4). */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function hmacMd5(key: string | Uint8Array, message: string | Uint8Array): Buffer {
  return createHmac('md5', key).update(message).digest();
}

/** base64(HMAC-MD5(key, message)), padded (24 chars), as the server sends it. */
export function digestBase64(key: string, message: string): string {
  return hmacMd5(key, message).toString('base64');
}

/**
 * Checks a client digest (padded or unpadded base64 of HMAC-MD5(key, message)) in constant time
 * with respect to the secret. Anything that does not decode to exactly 16 bytes is a mismatch.
 */
export function verifyDigest(key: string, message: string, clientDigest: string): boolean {
  if (!/^[A-Za-z0-9+/]{22}(==)?$/.test(clientDigest)) return false;
  const given = Buffer.from(clientDigest, 'base64');
  const expected = hmacMd5(key, message);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The 16-byte session key: HMAC-MD5(carpass, servertoken ‖ clienttoken). */
export function sessionKey(carPassword: string, serverToken: string, clientToken: string): Buffer {
  return hmacMd5(carPassword, serverToken + clientToken);
}

/** A random token of `length` characters from the base64 alphabet (22 in the MP). */
export function randomToken(length = 22, random: (n: number) => Uint8Array = randomBytes): string {
  const bytes = random(length);
  let out = '';
  for (let n = 0; n < length; n++) out += BASE64_ALPHABET[bytes[n]! & 63];
  return out;
}
