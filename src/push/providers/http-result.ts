/**
 * What the HTTP providers share: an answer's status as a SendResult kind, `Retry-After`, and a
 * failed request (timeout, connection error) as a temporary failure.
 */
import type { SendResult } from '../provider.js';

/** Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** 429, 5xx (and 408): try again later; other 4xx: permanent. 2xx is the caller's own case. */
export function isTemporaryStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The statuses by which a service asks its clients to slow down. */
export const SLOW_DOWN_STATUSES: readonly number[] = [429, 503];

/**
 * A result for an answer that is not a success and not one of the provider's own cases:
 * temporary (honouring Retry-After; `slowDownOn` asks the dispatcher to hold off the endpoint)
 * or permanent, with `detail` for the history.
 */
export function statusResult(status: number, detail: string, retryAfter: number | undefined, slowDownOn = SLOW_DOWN_STATUSES): SendResult {
  if (!isTemporaryStatus(status)) return { kind: 'permanent', detail };
  return {
    kind: 'temporary',
    detail,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(slowDownOn.includes(status) ? { slowDown: true } : {}),
  };
}

/** A request that did not get an answer: aborted by the attempt's timeout, or a network error. */
export function requestFailed(err: unknown, signal: AbortSignal): SendResult {
  if (signal.aborted) return { kind: 'temporary', detail: 'no answer in time' };
  const e = err as { code?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const code = typeof e?.cause?.code === 'string' ? e.cause.code : typeof e?.code === 'string' ? e.code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'temporary', detail: `connection failed (${code ?? message})` };
}
