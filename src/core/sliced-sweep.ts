/**
 * A periodic sweep over many members (connections, trackers, peers) spread over its period: each
 * step visits the next slice, so that a sweep of 19,000 members is sixty short pauses of the event
 * loop a minute, not one long one. Pure: the caller owns the timer and calls `step` `slices` times
 * a period.
 *
 * The members come from a live iterator (a Map's or Set's, or a generator over them) kept from one
 * step to the next: a member removed meanwhile is not visited, one added is visited in this round
 * or the next. A round begins every `slices` steps (or, when the members grew, with the first step
 * after the one before it is done) and visits everyone once; a slice is a `slices`th of the larger of `size()`
 * and the members of the last round.
 */
export class SlicedSweep<T> {
  private iterator: Iterator<T> | null = null;
  private seenThisRound = 0;
  private lastRound = 0;
  /** Steps so far, and the step that began the round under way (the next begins `slices` steps later or when it ends, whichever is later). */
  private steps = 0;
  private roundBegan = -Infinity;

  constructor(
    private readonly members: () => Iterator<T>,
    private readonly size: () => number,
    readonly slices: number,
  ) {
    if (!Number.isInteger(slices) || slices < 1) throw new RangeError(`slices must be a positive integer, not ${slices}`);
  }

  /** Visits the next slice; returns how many members it visited (0 when there are none, or the round is over before its time). */
  step(visit: (member: T) => void): number {
    const now = ++this.steps;
    let share = this.share();
    let visited = 0;
    while (visited < share) {
      if (this.iterator === null) {
        // a round that ended early waits for its period; one that ran long is followed at once,
        // but only by a step that has visited nobody yet (a member removed and added again is
        // at the old round's tail and the new one's head: never twice in one step)
        if (now < this.roundBegan + this.slices || visited > 0) break;
        this.iterator = this.members();
        this.seenThisRound = 0;
        this.roundBegan = now;
        share = this.share();
      }
      const next = this.iterator.next();
      if (next.done === true) {
        this.lastRound = this.seenThisRound;
        this.iterator = null;
        continue;
      }
      this.seenThisRound++;
      visited++;
      visit(next.value);
    }
    return visited;
  }

  /** Forgets the round under way: the next step begins a new one (and lets the old iterator go). */
  reset(): void {
    this.iterator = null;
    this.roundBegan = -Infinity;
  }

  private share(): number {
    return Math.max(1, Math.ceil(Math.max(this.size(), this.lastRound) / this.slices));
  }
}

/**
 * How many slices a sweep of `periodMs` takes, one every `stepMs` or more: `maxSlices` when the
 * period allows steps of at least `minStepMs`, fewer for short periods (tests), at least 1.
 */
export function slicesFor(periodMs: number, maxSlices: number, minStepMs = 1000): number {
  return Math.max(1, Math.min(maxSlices, Math.floor(periodMs / minStepMs)));
}
