/**
 * What an import reports: per table, the rows read, added, updated, unchanged and skipped (with
 * the reasons), and the rows that broke vts's rules one by one; as a summary table at the end.
 */
import { count, n } from '../core/count.js';
import { printableLine } from '../core/printable.js';

/** The bad rows printed one by one per table; the rest are counted. */
const LISTED = 20;
const BAD = 'broke a rule of vts or conflicted with its data (printed above)';

export class TableReport {
  read = 0;
  added = 0;
  updated = 0;
  unchanged = 0;
  /** Stored rows newer than the source's, kept. */
  newerHere = 0;
  /** Imported earlier and gone at the source since: removed here. */
  removed = 0;
  readonly skipped = new Map<string, number>();
  /** Rows that broke vts's rules or conflict with vts's data (the first ones are printed). */
  badCount = 0;
  /** Notes about the table (not per row). */
  readonly notes: string[] = [];

  constructor(readonly table: string) {}

  get skippedCount(): number {
    let n = this.newerHere;
    for (const c of this.skipped.values()) n += c;
    return n;
  }

  /** Counts a skipped row; a bad one is returned as the line to print while few have been. */
  skip(reason: string, bad: boolean): string | undefined {
    const key = bad ? BAD : reason;
    this.skipped.set(key, (this.skipped.get(key) ?? 0) + 1);
    if (!bad) return undefined;
    this.badCount++;
    return this.badCount <= LISTED ? `skipped a row of ${this.table}: ${reason}` : undefined;
  }

  /** After the table: how many bad rows were not printed. */
  unlisted(): string | undefined {
    return this.badCount > LISTED ? `skipped ${count(this.badCount - LISTED, 'more row')} of ${this.table} for such reasons` : undefined;
  }
}

/** The summary: a table of the counts, then the reasons of the skipped rows and the notes. */
export function formatSummary(reports: readonly TableReport[], dryRun: boolean): string {
  const header = ['table', 'read', dryRun ? 'would add' : 'added', dryRun ? 'would update' : 'updated', 'unchanged', 'skipped', dryRun ? 'would remove' : 'removed'];
  const rows = reports.map((r) => [r.table, n(r.read), n(r.added), n(r.updated), n(r.unchanged), n(r.skippedCount), n(r.removed)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(header), ...rows.map(line)];
  for (const r of reports) {
    const reasons = [...r.skipped].map(([why, count]) => `  ${r.table}: ${n(count)} ${why}`);
    if (r.newerHere > 0) reasons.push(`  ${r.table}: ${n(r.newerHere)} newer in vts than at the source (kept)`);
    out.push(...reasons, ...r.notes.map((note) => `  ${r.table}: ${note}`));
  }
  return out.map(printableLine).join('\n') + '\n';
}
