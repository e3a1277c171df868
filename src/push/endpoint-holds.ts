/**
 * The back-off of endpoints that ask to slow down (HTTP 429, 503): nothing is sent to such an
 * endpoint until its wait has passed: what it asked for (`Retry-After`), else a wait that doubles
 * each time it asks again soon after. Pure bookkeeping: times are epoch seconds given by the
 * caller (the dispatcher, src/push/dispatcher.ts).
 */

/** The first wait of an endpoint that asks without saying how long (seconds), and the longest. */
const FIRST_SECONDS = 1;
const MAX_SECONDS = 60;

export class EndpointHolds {
  /** Per endpoint: until when nothing goes to it, and how often in a row it asked. */
  private readonly held = new Map<string, { until: number; times: number }>();

  /** `longest`: the most seconds a Retry-After is followed (the dispatcher's longest retry wait). */
  constructor(private readonly longest: number) {}

  get any(): boolean {
    return this.held.size > 0;
  }

  /** Until when nothing goes to `endpoint`; 0 when it may be sent to at `now`. */
  until(endpoint: string, now: number): number {
    const h = this.held.get(endpoint);
    return h !== undefined && h.until > now ? h.until : 0;
  }

  /**
   * `endpoint` asked at `now` to slow down: the seconds of the new wait, or null when one was
   * already running (the answers of requests sent before it asked; a longer Retry-After counts).
   */
  ask(endpoint: string, now: number, retryAfter: number | undefined): number | null {
    const h = this.held.get(endpoint);
    const asked = retryAfter === undefined ? 0 : Math.min(retryAfter, this.longest);
    if (h !== undefined && h.until > now) {
      h.until = Math.max(h.until, now + asked);
      return null;
    }
    for (const [e, old] of this.held) if (old.until + MAX_SECONDS < now) this.held.delete(e);
    const times = h !== undefined && h.until + MAX_SECONDS >= now ? h.times + 1 : 1;
    const wait = Math.max(1, asked > 0 ? asked : Math.min(MAX_SECONDS, FIRST_SECONDS * 2 ** (times - 1)));
    this.held.set(endpoint, { until: now + wait, times });
    return wait;
  }

  /** `endpoint` answered well at `now`: once its wait has passed, the next one starts from the first. */
  answered(endpoint: string, now: number): void {
    if (this.held.has(endpoint) && this.until(endpoint, now) === 0) this.held.delete(endpoint);
  }
}
