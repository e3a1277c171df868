/** Counts as the command line prints them: `1,000,000`, and `1 row` but `2 rows`. Pure. */

/** A count: 1,000,000. */
export const n = (v: number): string => Math.round(v).toLocaleString('en-US');

/** A count and its noun, singular for one: `1 row`, `0 rows`, `1,000 rows`. */
export const count = (v: number, singular: string, plural = `${singular}s`): string => `${n(v)} ${Math.round(v) === 1 ? singular : plural}`;
