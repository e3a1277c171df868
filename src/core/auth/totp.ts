/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP) as authenticator apps make them:
 * HMAC-SHA-1, 6 digits, 30-second steps, the secret shown as RFC 4648 base32 (no padding). A code
 * is accepted in its own step and the one before or after (clocks drift), and only in a step later
 * than the last one used, so that a code is never accepted twice (docs/accounts.md "A second
 * factor"). Pure: node:crypto computes only.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted before and after the present one. */
export const TOTP_WINDOW = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 of `bytes`, upper case, without padding (as otpauth URIs carry it). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The bytes of base32 `text` (either case; spaces, hyphens and trailing `=` padding ignored, as
 * people copy a secret), or null when it holds another character or bits that do not end a byte.
 */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase();
  // a length of 1, 3 or 6 (mod 8) characters cannot be the end of whole bytes
  if ([1, 3, 6].includes(clean.length % 8)) return null;
  const out = new Uint8Array(Math.floor((clean.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const ch of clean) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      out[at++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  // the bits left over are padding: they must be zero (else the text is not any encoding of bytes)
  if ((value & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/** RFC 4226 HOTP of `secret` at `counter`: `digits` decimal digits. */
export function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of `epochMs`. */
export const totpStep = (epochMs: number): number => Math.floor(epochMs / 1000 / TOTP_PERIOD_SECONDS);

/** The code of `secret` at `epochMs`. */
export const totpCode = (secret: Uint8Array, epochMs: number, digits = TOTP_DIGITS): string => hotp(secret, totpStep(epochMs), digits);

/** Whether `code` looks like a TOTP code at all (six digits; blanks between them are allowed). */
export const looksLikeTotp = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ''));

/**
 * The step whose code `code` is, within the window around `epochMs` and later than `lastStep`
 * (the last step used), or null. Every step of the window is compared, in constant time.
 */
export function matchTotp(secret: Uint8Array, code: string, epochMs: number, lastStep: number): number | null {
  const given = Buffer.from(code.replace(/\s/g, ''), 'utf8');
  const now = totpStep(epochMs);
  let found: number | null = null;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    const expected = Buffer.from(hotp(secret, step), 'utf8');
    const same = given.length === expected.length && timingSafeEqual(given, expected);
    if (same && step > lastStep && found === null) found = step;
  }
  return found;
}

/** The `otpauth://` URI an authenticator app reads from the QR code (Key URI Format). */
export function otpauthUri(user: string, secretBase32: string, issuer = 'vts'): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(user)}`;
  const query = `secret=${secretBase32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`;
  return `otpauth://totp/${label}?${query}`;
}
