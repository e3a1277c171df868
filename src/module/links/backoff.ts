/**
 * The reconnect back-off of the module's server links (the v2 MP link and the v3 MQTT link): a
 * module never gives up on its server, but it must not hammer a server that is down or that
 * refuses it, and a fleet of modules that lost their server together (a server restart) must not
 * come back in one burst.
 *
 * Retry n (0 for the first after a failure) waits at most `min × 2^n`, capped at `max`; the
 * delay is drawn uniformly from the upper part of that step: between `(1 − jitter)` and 1 times
 * it ("capped exponential back-off with downward jitter"). With the defaults (1 s, 60 s, 20 %):
 * 0.8–1 s, 1.6–2 s, 3.2–4 s, … 48–60 s. The cap is a true upper bound, and modules that failed
 * together spread over a fifth of each step. A successful login resets the back-off.
 */
import { VtsError } from '../../errors.js';

export interface BackoffOptions {
  /** The longest first delay (ms, default 1000). */
  minMs?: number;
  /** The cap (ms, default 60000); at least `minMs`. */
  maxMs?: number;
  /** The random share taken off each delay, 0 (none) to 1 ("full jitter"); default 0.2. */
  jitter?: number;
  /** Random source in [0, 1) (default Math.random; tests inject their own). */
  random?: () => number;
}

export const DEFAULT_BACKOFF = { minMs: 1000, maxMs: 60_000, jitter: 0.2 } as const;

type Shape = Required<Pick<BackoffOptions, 'minMs' | 'maxMs' | 'jitter'>>;

/** The delay (ms) before retry `attempt` (0-based) for the random draw `r` in [0, 1). Pure. */
export function backoffDelay(attempt: number, shape: Shape, r: number): number {
  const step = Math.min(shape.maxMs, shape.minMs * 2 ** Math.min(Math.max(0, attempt), 60));
  const draw = Math.min(Math.max(r, 0), 1);
  return Math.round(step * (1 - shape.jitter * draw));
}

/** Validates the options: positive minimum, maximum not below it, jitter in [0, 1]. */
export function backoffShape(opts: BackoffOptions = {}): Shape {
  const minMs = opts.minMs ?? DEFAULT_BACKOFF.minMs;
  const maxMs = opts.maxMs ?? Math.max(minMs, DEFAULT_BACKOFF.maxMs);
  const jitter = opts.jitter ?? DEFAULT_BACKOFF.jitter;
  if (!(minMs > 0) || !Number.isFinite(minMs)) throw new VtsError('VTS_ERR_CONFIG', `reconnect back-off: minimum must be > 0 ms, got ${minMs}`);
  if (!(maxMs >= minMs) || !Number.isFinite(maxMs)) {
    throw new VtsError('VTS_ERR_CONFIG', `reconnect back-off: maximum (${maxMs} ms) must not be below the minimum (${minMs} ms)`);
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new VtsError('VTS_ERR_CONFIG', `reconnect back-off: jitter must be within 0..1, got ${jitter}`);
  return { minMs, maxMs, jitter };
}

/** The state of one link's back-off: how many retries failed in a row. */
export class Backoff {
  private readonly shape: Shape;
  private readonly random: () => number;
  private failures = 0;

  constructor(opts: BackoffOptions = {}) {
    this.shape = backoffShape(opts);
    this.random = opts.random ?? Math.random;
  }

  /** Retries scheduled since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /** The delay before the next retry (ms); each call moves one step up. */
  next(): number {
    return backoffDelay(this.failures++, this.shape, this.random());
  }

  /** After a successful login: the next failure starts at the minimum again. */
  reset(): void {
    this.failures = 0;
  }
}

/** Whole seconds left until `deadline` (epoch ms), for the links' status texts. */
export function secondsLeft(deadline: number, now = Date.now()): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
