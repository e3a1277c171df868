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
