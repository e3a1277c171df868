/**
 * The JSON bodies of the lists of drives and charges, remembered: an owner's dashboard asks for a
 * year of drives (2,000 of them, most of a megabyte) again and again, and the store hands out the
 * same frozen object for a session while its row is unchanged (src/store/drives-rows.ts). So:
 * - each finished session's JSON is remembered with its object (a WeakMap: it goes with it);
 * - the last body of each list (vehicle, period, kind; a period given in full) is remembered as
 *   bytes while every session in it is finished, and given again when the same objects come back in the same context (the
 *   places and the capacity that the JSON depends on). Bounded in bytes; the oldest go first.
 * An open session's JSON depends on the time (its duration so far): it is made at every request.
 */

/** What a list body is remembered under (a request's period is part of it). */
export interface ListKey {
  vehicleId: string;
  from: number;
  to: number;
}

interface Body<T> {
  sessions: readonly T[];
  context: string;
  bytes: Buffer;
}

/** Whether a request names its period in full (`from` and `to`): only then is its body worth keeping. */
export function fullPeriod(params: Record<string, string>): boolean {
  return (params.from ?? '') !== '' && (params.to ?? '') !== '';
}

export class RenderedLists<T extends object> {
  private readonly items = new WeakMap<T, { context: string; json: string }>();
  private readonly bodies = new Map<string, Body<T>>();
  private held = 0;

  /**
   * @param finished whether a session is over (its JSON no longer changes with the time)
   * @param maxBytes the bound of the bodies held
   */
  constructor(
    private readonly finished: (s: T) => boolean,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /**
   * The list's JSON (`[…]` and a newline) as bytes; `render` makes one session's JSON. `key` null:
   * the body is not remembered (a period that moves with the time: it would not be asked again).
   */
  body(key: ListKey | null, sessions: readonly T[], context: string, render: (s: T) => string): Buffer {
    const k = key === null ? null : `${key.vehicleId}\0${key.from}\0${key.to}`;
    const last = k === null ? undefined : this.bodies.get(k);
    if (last && last.context === context && sameItems(last.sessions, sessions)) {
      // the most recently used last out
      this.bodies.delete(k!);
      this.bodies.set(k!, last);
      return last.bytes;
    }
    let all = true;
    const parts = sessions.map((s) => {
      const hit = this.items.get(s);
      if (hit && hit.context === context) return hit.json;
      const json = render(s);
      if (this.finished(s)) this.items.set(s, { context, json });
      else all = false;
      return json;
    });
    const bytes = Buffer.from(`[${parts.join(',')}]\n`);
    if (k === null) return bytes;
    if (last) this.forget(k, last);
    if (all && bytes.length <= this.maxBytes / 4) this.keep(k, { sessions, context, bytes });
    return bytes;
  }

  private keep(k: string, body: Body<T>): void {
    this.bodies.set(k, body);
    this.held += body.bytes.length;
    for (const [oldest, b] of this.bodies) {
      if (this.held <= this.maxBytes) break;
      this.forget(oldest, b);
    }
  }

  private forget(k: string, body: Body<T>): void {
    this.bodies.delete(k);
    this.held -= body.bytes.length;
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
