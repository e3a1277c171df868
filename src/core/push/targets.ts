/**
 * The rules for a user's own notification targets (webhook, ntfy): checked alike by the CLI and
 * the web API. A message never repeats the URL or the secret (they may hold credentials).
 */
import type { TargetKind } from './channels.js';

export const MAX_TARGET_URL = 2048;
export const MAX_TARGET_SECRET = 256;
/** Targets one user may have. */
export const MAX_TARGETS = 20;

/** What is wrong with a target's URL, or null when it is fine. */
export function targetUrlProblem(kind: TargetKind, value: string): string | null {
  if (value.length > MAX_TARGET_URL) return `the URL is longer than ${MAX_TARGET_URL} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL: give http(s)://host[:port]/path';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the URL must start with https:// or http://';
  if (url.hash !== '') return 'the URL must not have a #fragment';
  if (kind === 'ntfy' && !/^\/[^/]+\/?$/.test(url.pathname)) return 'an ntfy URL names one topic: https://ntfy.sh/<topic> (or your own ntfy server)';
  return null;
}

/** What is wrong with a webhook secret, or null when it is fine ('' = none). */
export function targetSecretProblem(secret: string): string | null {
  if (secret.length > MAX_TARGET_SECRET) return `the secret is longer than ${MAX_TARGET_SECRET} characters`;
  if ([...secret].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return 'the secret must not contain control characters';
  return null;
}

/** A URL as lists show it: its user and password (ntfy access) replaced by `***`. */
export function maskedUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.username === '' && url.password === '') return value;
    url.username = '***';
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
}
