/** Group messages `g` and `G` (docs/protocol/mp.md §14). */

/** Car → server `g<groupid>,<groupdata>`; the group id is upper-cased. */
export function parseGroupUpdate(data: string): { group: string; groupData: string } | null {
  const comma = data.indexOf(',');
  if (comma <= 0) return null;
  return { group: data.slice(0, comma).toUpperCase(), groupData: data.slice(comma + 1) };
}

/** App → server `G<groupid>[,…]` (the rest is ignored). */
export function parseGroupSubscription(data: string): string | null {
  const comma = data.indexOf(',');
  const group = (comma < 0 ? data : data.slice(0, comma)).trim().toUpperCase();
  return group.length > 0 ? group : null;
}

/** Server → app `g<vehicleid>,<GROUP>,<groupdata>`. */
export function groupMessageData(vehicleId: string, group: string, groupData: string): string {
  return `${vehicleId},${group},${groupData}`;
}
