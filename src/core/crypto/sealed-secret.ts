/**
 * Secrets that vts must read back (an ABRP user token), sealed at rest with AES-256-GCM under a
 * key that is not in the database (docs/abrp.md "The token key"). The sealed text is
 * `v1:<base64 of iv (12) | tag (16) | ciphertext>`; the associated data binds it to its row (the
 * vehicle id), so a sealed token copied to another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SEAL_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1:';

/** Seals `secret` for the row `context`. */
export function seal(key: Buffer, secret: string, context: string): string {
  if (key.length !== SEAL_KEY_BYTES) throw new Error('the seal key must be 32 bytes');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The secret sealed for `context`, or null when it does not open with this key (another key, another row, damaged). */
export function unseal(key: Buffer, sealed: string, context: string): string | null {
  if (key.length !== SEAL_KEY_BYTES || !sealed.startsWith(PREFIX)) return null;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** A key given as 64 hexadecimal digits, or null. */
export function parseSealKey(text: string): Buffer | null {
  const t = text.trim();
  return /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : null;
}
