/**
 * Compares a given secret with the expected one in time that does not depend on where they differ
 * nor on their lengths (both are hashed first). Pure.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A token at least this long is taken as unguessable (`vts serve` warns below it; src/http/ops.ts). */
export const STRONG_TOKEN = 16;

export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}
