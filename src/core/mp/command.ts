/** Commands `C` and responses `c` (docs/protocol/messages.md §5, docs/protocol/mp.md §11). */

/** Functions answered by the server itself when the request is not paranoid (§11.4). */
export const SERVER_FUNCTIONS: ReadonlySet<number> = new Set([30, 31, 32]);

/** The function number of a plain `C` request (`<fn>[,<params>]`); null when it is not a number. */
export function commandFunction(data: string): number | null {
  const comma = data.indexOf(',');
  const head = comma < 0 ? data : data.slice(0, comma);
  return /^\d{1,6}$/.test(head) ? Number(head) : null;
}

/** The parameters of a plain `C` request: everything after the first comma ('' when none). */
export function commandParams(data: string): string {
  const comma = data.indexOf(',');
  return comma < 0 ? '' : data.slice(comma + 1);
}

/**
 * Whether a car's `c` response completes the command at the head of the queue (§11.2).
 * Functions 1 and 3 answer with several lines `c<fn>,0,<n>,<count>,…`; the head stays until the
 * line with n = count − 1. Unlike REF, an error result (≠ 0) completes the command (REF never pops
 * the queue then, and later responses go to the wrong client: docs/protocol/mp.md §19 #11).
 */
export function completesCommand(responseData: string): boolean {
  const f = responseData.split(',', 4);
  if (f.length < 4) return f[0] !== '1' && f[0] !== '3' ? true : f[1] !== '0';
  const [fn, result, now, max] = f as [string, string, string, string];
  if (fn !== '1' && fn !== '3') return true;
  if (result !== '0') return true;
  const n = Number(now);
  const m = Number(max);
  if (!Number.isFinite(n) || !Number.isFinite(m)) return true;
  return n >= m - 1;
}

/** The failure reply for a command that cannot reach the car: `c<fn>,1,<text>`. */
export function failureResponse(fn: number | string, text: string): string {
  return `${fn},1,${encodeText(text)}`;
}

/** FW3's mp_encode: CR LF → CR, lone LF → CR, `,` → `;` (docs/protocol/messages.md §1). */
export function encodeText(text: string): string {
  return text.replace(/\r?\n/g, '\r').replace(/,/g, ';');
}
