/**
 * Permission strings (docs/protocol/http-api-v2.md §3.3): `*` alone grants everything; otherwise a comma list,
 * compared case-insensitively, whitespace around commas ignored; `none` is no permission at all.
 */

export function parseRights(permit: string): Set<string> {
  return new Set(
    permit
      .split(',')
      .map((r) => r.trim().toLowerCase())
      .filter((r) => r.length > 0),
  );
}

/** True when `permit` grants any of `rights` (or is exactly `*`). */
export function hasRight(permit: string, ...rights: string[]): boolean {
  const p = permit.trim();
  if (p === '*') return true;
  if (p.toLowerCase() === 'none') return false;
  const granted = parseRights(p);
  return rights.some((r) => granted.has(r.toLowerCase()));
}

/** Normalises a rights list given on the CLI or in a token request: `a, b ,c` → `a,b,c`. */
export function normaliseRights(permit: string): string {
  const p = permit.trim();
  if (p === '*') return '*';
  return [...parseRights(p)].join(',');
}
