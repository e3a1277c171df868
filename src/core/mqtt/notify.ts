/**
 * What a v3 module's notifications and events become on the v2 side (docs/protocol/mqtt-v3.md §5, §6, §11.6).
 * Pure.
 * - `notify/info/*` → `PI<text>`, `notify/alert/*` → `PA<text>` (text MP-encoded: LF → CR, `,` → `;`);
 * - `notify/error/*` → `PE<payload as is>` (`<vehicletype>,<code>,<data>`);
 * - `notify/data/<subtype>/<entryid>/<age>` → a historical record (`<type>,<recno>,<keep>,<data>`
 *   of the payload's first line), timestamped `age` seconds ago, like a v2 `h`;
 * - an event → `PI<event: name>` for apps and a `*-Log-Event` history record (vts's choice: v2 has
 *   no event message; see docs/compatibility.md).
 */
import { encodeText } from '../mp/command.js';
import { parseH, type HistoricalInput } from '../mp/historical.js';

/** The `P` message data (`<type letter><text>`) of an info, alert or error notification. */
export function notificationData(type: 'info' | 'alert' | 'error', payload: string): string {
  switch (type) {
    case 'info':
      return 'I' + encodeText(payload);
    case 'alert':
      return 'A' + encodeText(payload);
    case 'error':
      return 'E' + payload.replace(/\r?\n/g, '\r');
  }
}

/** The historical record of a `notify/data` payload; null when the first line is not a record. */
export function dataRecord(payload: string, age: number): HistoricalInput | null {
  const nl = payload.search(/\r?\n/);
  const rec = parseH(nl < 0 ? payload : payload.slice(0, nl));
  return rec ? { ...rec, timeDiff: Math.min(0, age) } : null;
}

/** History type of the module's events. */
export const EVENT_HISTORY_TYPE = '*-Log-Event';

/**
 * An event name as it may be passed on (at most 200 characters, no control characters; spaces are
 * allowed: `location.enter.My Home`); null if not.
 */
export function eventName(text: string): string | null {
  const name = text.trim();
  if (name === '' || name.length > 200) return null;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 0x20 || c === 0x7f) return null;
  }
  return name;
}

/** The `P` data apps get for a module event. */
export function eventNotificationData(name: string): string {
  return 'I' + encodeText(`Event: ${name}`);
}
