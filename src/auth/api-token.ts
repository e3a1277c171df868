/** API tokens: 256 random bits as 64 hex chars; only their SHA-256 is stored. */
import { createHash, randomBytes } from 'node:crypto';

export function newApiToken(): string {
  return randomBytes(32).toString('hex');
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a password field looks like an API token (and so is worth a token lookup). */
export function looksLikeApiToken(text: string): boolean {
  return /^[0-9a-f]{64}$/i.test(text);
}
