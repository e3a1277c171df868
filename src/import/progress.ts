/**
 * Progress of a long import: on a terminal a bar redrawn in place (rows done / total, rate, time
 * left), else a plain line every `every` ms; a line when a table is done either way. The clock is
 * injected (tests).
 */
import { count, n } from '../core/count.js';
import { printableLine } from '../core/printable.js';

export interface ProgressOutput {
  write(text: string): void;
  /** Whether it is a terminal (a bar drawn in place). */
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  now?: () => number;
  /** Between two plain lines (default 10 s); a bar is redrawn at most every 200 ms. */
  every?: number;
}


function duration(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export class Progress {
  private readonly now: () => number;
  private readonly every: number;
  private table = '';
  private total = 0;
  private done = 0;
  private started = 0;
  private shownAt = 0;
  private drawn = false;

  constructor(
    private readonly out: ProgressOutput,
    opts: ProgressOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.every = opts.every ?? 10_000;
  }

  start(table: string, total: number): void {
    this.table = table;
    this.total = total;
    this.done = 0;
    this.started = this.now();
    this.shownAt = this.started;
    if (this.out.isTTY) this.draw();
  }

  advance(rows: number): void {
    this.done += rows;
    const t = this.now();
    if (t - this.shownAt < (this.out.isTTY ? 200 : this.every)) return;
    this.shownAt = t;
    if (this.out.isTTY) this.draw();
    else this.out.write(`${this.line()}\n`);
  }

  /** The table is done: its last line. */
  finish(): void {
    const took = this.now() - this.started;
    const rate = took > 0 ? ` (${n((this.done * 1000) / took)} rows/s)` : '';
    this.clear();
    this.out.write(`${this.table}: ${count(this.done, 'row')} in ${duration(took)}${rate}\n`);
  }

  /** Something to say between redraws (a skipped row): the bar is drawn again below it. */
  say(line: string): void {
    this.clear();
    // it may quote the source's rows: never a control character to the terminal
    this.out.write(`${printableLine(line)}\n`);
    if (this.out.isTTY && this.table !== '') this.draw();
  }

  private clear(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }

  private rateAndEta(): { rate: number; eta: string } {
    const took = this.now() - this.started;
    const rate = took > 0 ? (this.done * 1000) / took : 0;
    const left = Math.max(0, this.total - this.done);
    return { rate, eta: rate > 0 ? duration((left / rate) * 1000) : '?' };
  }

  /** `history: 412,000 / 1,000,000 rows (41 %), 52,300 rows/s, about 11 s left` */
  line(): string {
    const { rate, eta } = this.rateAndEta();
    const pct = this.total > 0 ? Math.min(100, Math.floor((this.done * 100) / this.total)) : 100;
    return `${this.table}: ${n(this.done)} / ${count(this.total, 'row')} (${pct} %), ${n(rate)} rows/s, about ${eta} left`;
  }

  private draw(): void {
    const { rate, eta } = this.rateAndEta();
    const fraction = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const width = 24;
    const full = Math.round(fraction * width);
    const bar = `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
    const text = `${this.table.padEnd(24)} ${bar} ${n(this.done)}/${n(this.total)} ${Math.floor(fraction * 100)}%  ${n(rate)} rows/s  ETA ${eta}`;
    this.out.write(`\r\x1b[K${text.slice(0, Math.max(20, (this.out.columns ?? 100) - 1))}`);
    this.drawn = true;
  }
}
