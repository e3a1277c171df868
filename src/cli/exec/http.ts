/**
 * `vts exec --via http`: the module's own web server, `GET <module>/api/execute` with `apikey`
 * (the module's admin password), `command` and, for JavaScript, `type=js` (docs/protocol/commands.md
 * §3). A 200 carries the output as the body; anything else is a failure.
 */
import { ExecError, oneLine, reason, timedOut, type ExecOutcome, type ExecRequest } from './common.js';

export interface HttpTarget {
  /** The module's base URL, e.g. `http://192.168.4.1` (no credentials in it). */
  url: URL;
  apikey?: string;
}

export async function runViaHttp(req: ExecRequest, target: HttpTarget): Promise<ExecOutcome> {
  const base = target.url.href.endsWith('/') ? target.url.href : target.url.href + '/';
  const url = new URL('api/execute', base);
  if (target.apikey !== undefined) url.searchParams.set('apikey', target.apikey);
  url.searchParams.set('command', req.kind === 'js' ? req.text : (req.consoleLine ?? ''));
  if (req.kind === 'js') url.searchParams.set('type', 'js');
  const where = target.url.origin;
  let res: Response;
  let body: string;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(req.timeoutMs) });
    body = await res.text();
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw timedOut(`no answer from the module at ${where}`, req.timeoutMs);
    throw new ExecError(`cannot reach the module at ${where}: ${reason(err)}`);
  }
  if (res.status === 200) return { output: body, result: 0 };
  if (res.status === 403) {
    throw new ExecError(`the module at ${where} refused the request (403): ${target.apikey === undefined ? '--apikey is missing' : 'wrong --apikey'}`);
  }
  const text = oneLine(body);
  throw new ExecError(`the module at ${where} answered ${res.status}${text ? `: ${text}` : ''}`);
}
