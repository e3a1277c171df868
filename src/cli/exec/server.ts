/**
 * `vts exec --via server`: the server's JSON command API, `POST <server>/api/command/<VEHICLE>`
 * with `{"command","type","timeout"}`, authenticated by `username` and `password` (account
 * password or API token) in the query. 200 `{"output","result"}`; errors `{"error","message"}`.
 */
import type { MpResultCode } from '../../core/commands/result.js';
import { ExecError, oneLine, reason, timedOut, type ExecOutcome, type ExecRequest } from './common.js';

export interface ServerTarget {
  /** Base URL, e.g. `http://127.0.0.1:6868` (no credentials in it). */
  url: URL;
  user: string;
  /** Account password or API token. */
  secret: string;
  /** The secret is an API token (--token). */
  token?: boolean;
}

/** Time the client waits beyond the command's timeout for the server's own 504. */
const GRACE_MS = 5000;

/** The server's command timeout: whole seconds are sent as integers, others with millisecond precision. */
function timeoutSeconds(ms: number): number {
  return Number((ms / 1000).toFixed(3));
}

export async function runViaServer(req: ExecRequest, target: ServerTarget): Promise<ExecOutcome> {
  const base = target.url.href.endsWith('/') ? target.url.href : target.url.href + '/';
  const url = new URL(`api/command/${encodeURIComponent(req.vehicleId)}`, base);
  url.searchParams.set('username', target.user);
  url.searchParams.set('password', target.secret);
  const where = target.url.origin;
  let res: Response;
  let body: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ command: req.text, type: req.kind, timeout: timeoutSeconds(req.timeoutMs) }),
      signal: AbortSignal.timeout(req.timeoutMs + GRACE_MS),
    });
    body = await res.text();
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw timedOut(`no answer from the server at ${where}`, req.timeoutMs + GRACE_MS);
    throw new ExecError(`cannot reach the server at ${where}: ${reason(err)}`);
  }
  if (res.status === 200) {
    const parsed = parseJson(body);
    const output = parsed?.output;
    const result = parsed?.result;
    if (typeof output !== 'string' || !(result === 0 || result === 1 || result === 2 || result === 3)) {
      throw new ExecError(`unexpected answer from the server at ${where}: ${oneLine(body)}`);
    }
    return { output, result: result as MpResultCode };
  }
  throw failure(res.status, body, where, target, req.vehicleId);
}

function parseJson(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The error for a non-200 answer: the API's JSON error as it is, the plain-text ones explained. */
function failure(status: number, body: string, where: string, target: ServerTarget, vehicleId: string): Error {
  const user = target.user;
  const json = parseJson(body);
  if (json && typeof json.error === 'string' && typeof json.message === 'string') {
    return new ExecError(oneLine(json.message), json.error);
  }
  const text = oneLine(body);
  if (status === 401) return new ExecError(`the server at ${where} refused the login of user ${user}: wrong user name, password or token (401)`);
  if (status === 403 && text === 'Insufficient rights') {
    if (target.token) {
      return new ExecError('this API token may not run commands: its permit needs the right command (403 Insufficient rights); create one with permit=command, or use --password');
    }
    return new ExecError(`user ${user} may not run commands: the right command, admin or * is needed (403 Insufficient rights)`);
  }
  if (status === 403) return new ExecError(`${vehicleId} is not one of user ${user}'s vehicles (403 Forbidden): check the vehicle id`);
  if (status === 404) return new ExecError(`the server at ${where} has no command API (404 ${text}): is it vts?`);
  return new ExecError(`the server at ${where} answered ${status}${text ? `: ${text}` : ''}`);
}
