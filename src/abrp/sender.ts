/**
 * One send of telemetry to ABRP's telemetry API: `GET <url>/1/tlm/send` with `api_key`, `token`
 * and `tlm` (JSON) as URL-encoded query parameters, as the OVMS v3 module's ABRP plugin calls it
 * (Iternio's API takes the same parameters in a POST body too). Node's fetch with a timeout. The
 * outcome's reason is for the owner's eyes and the log: it never holds the URL, the API key or
 * the token (a reason quoting the token is cut out of it).
 */
import { classifyAnswer, type SendOutcome } from '../core/abrp/policy.js';

export interface SenderConfig {
  /** The API's base, without a trailing slash (default https://api.iternio.com). */
  url: string;
  apiKey: string;
  timeoutMs: number;
}

/** An answer body longer than this is not read further. */
const MAX_BODY = 16 * 1024;

/** `text` without any copy of the secrets. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

/** A network failure as a few words: never the error's own message (it may quote the URL). */
function networkReason(err: unknown): string {
  const e = err as { name?: unknown; cause?: { code?: unknown } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'ABRP did not answer in time';
  const code = e?.cause?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? `could not reach ABRP (${code})` : 'could not reach ABRP';
}

async function bodyText(res: Response): Promise<string> {
  const text = await res.text();
  return text.length > MAX_BODY ? text.slice(0, MAX_BODY) : text;
}

/** Sends `tlm` (JSON text) for the user `token`; `stop` cuts it short (shutdown). Never throws. */
export async function sendTlm(config: SenderConfig, token: string, tlm: string, stop?: AbortSignal): Promise<SendOutcome> {
  const url = new URL(`${config.url}/1/tlm/send`);
  url.searchParams.set('api_key', config.apiKey);
  url.searchParams.set('token', token);
  url.searchParams.set('tlm', tlm);
  let outcome: SendOutcome;
  try {
    const timeout = AbortSignal.timeout(config.timeoutMs);
    const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
    const res = await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, signal, redirect: 'error' });
    outcome = classifyAnswer(res.status, res.headers.get('retry-after'), await bodyText(res));
  } catch (err) {
    outcome = { kind: 'retry', reason: networkReason(err) };
  }
  return outcome.kind === 'ok' ? outcome : { ...outcome, reason: scrub(outcome.reason, [token, config.apiKey]) };
}
