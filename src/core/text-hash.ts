/**
 * A short fingerprint of a string: two 32-bit FNV-1a hashes of its UTF-16 code units (different
 * offsets and primes), as base-36 text `x.y` (at most 15 characters). Not cryptographic: for
 * remembering whether a value was seen before or has changed without keeping the value itself
 * (a parked fleet's drives trackers would otherwise hold a copy of every car's last records).
 */
export function textHash(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x0100019d);
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/** Whether `s` has the form `textHash` gives. */
export const isTextHash = (s: string): boolean => /^[0-9a-z]{1,7}\.[0-9a-z]{1,7}$/.test(s);
