/** Rules for messages a car sends to be stored and forwarded (docs/protocol/mp.md §8.1, §9.1). */

/**
 * REF's kludge for module firmware 1.2.0: the first `,performance,,` in a plain `S` becomes
 * `,performance,` (applied to the stored and the forwarded copy).
 */
export function repairStatus(code: string, data: string): string {
  if (code !== 'S') return data;
  const at = data.indexOf(',performance,,');
  return at < 0 ? data : data.slice(0, at) + ',performance,' + data.slice(at + ',performance,,'.length);
}

/** Replay order of stored messages at client login: F, S, then the others ascending (REF's SQL). */
export function replayOrder(a: string, b: string): number {
  const rank = (c: string): number => (c === 'F' ? 0 : c === 'S' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}
