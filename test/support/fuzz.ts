/**
 * Shared settings of the property-based fuzz tests (fast-check). CI runs a few thousand cases per
 * property; `npm run fuzz` sets VTS_FUZZ_RUNS to run many more. A failure prints fast-check's seed
 * and path; VTS_FUZZ_SEED (and VTS_FUZZ_PATH) replay exactly that case.
 */
import type { Parameters } from 'fast-check';

/** The parameters for one property: `runs` cases in CI, scaled up by VTS_FUZZ_RUNS. */
export function fuzzParams<T>(runs: number, extra: Parameters<T> = {}): Parameters<T> {
  const override = Number(process.env.VTS_FUZZ_RUNS);
  const scaled = Number.isFinite(override) && override > 0 ? Math.max(runs, override) : runs;
  const seed = process.env.VTS_FUZZ_SEED;
  const path = process.env.VTS_FUZZ_PATH;
  return {
    numRuns: scaled,
    ...(seed !== undefined && seed !== '' ? { seed: Number(seed) } : {}),
    ...(path ? { path } : {}),
    ...extra,
  };
}

/** True when `npm run fuzz` runs (many cases): tests may print progress or use longer budgets. */
export const longFuzz = Number(process.env.VTS_FUZZ_RUNS) > 0;

/**
 * The parameters of a property over inputs of up to 100 KB: its CI count, and in the long mode a
 * twentieth of VTS_FUZZ_RUNS (such a property checks the time per input, not many shapes).
 */
export const longInputParams = <T>(runs: number): Parameters<T> =>
  fuzzParams<T>(runs, { numRuns: Math.max(runs, Math.floor((Number(process.env.VTS_FUZZ_RUNS) || 0) / 20)) });

/**
 * Far above what any linear parser needs for 100 KB (a few ms), far below catastrophic
 * backtracking (minutes): a hang guard, not a speed requirement.
 */
const GUARD_MS = 5000;

/** Runs `f`, failing when it takes longer than the hang guard. */
export function timed<T>(what: string, input: string, f: () => T): T {
  const t0 = performance.now();
  const r = f();
  const ms = performance.now() - t0;
  if (ms >= GUARD_MS) {
    throw new Error(`${what} took ${Math.round(ms)} ms on ${input.length} chars: ${JSON.stringify(input.slice(0, 60))}…`);
  }
  return r;
}
