/**
 * Webhook targets (a user's own, `vts notify add <user> webhook <url> [--secret <s>]`): an HTTP
 * POST of a JSON document to the target's URL, signed with an HMAC-SHA256 header when the target
 * has a secret. Also the HTTP delivery the ntfy provider shares (`postToTarget`): the target URL's
 * user:password as Basic auth, redirects not followed, the answer's status as a result.
 */
import { createHmac } from 'node:crypto';
import { VERSION } from '../../version.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { requestFailed, retryAfterSeconds, statusResult } from './http-result.js';
import { detailLine } from './detail-line.js';

/** The JSON document a webhook receives (keys in this order). */
export interface WebhookPayload {
  vehicleId: string;
  vehicleName: string;
  alertType: string;
  text: string;
  /** When the notification was raised, epoch seconds. */
  time: number;
  /** The same time as ISO 8601 UTC (`2024-05-01T12:00:00Z`). */
  timeIso: string;
  /** The notification's id in the history (0 for `vts push test`). */
  notificationId: number;
}

export const USER_AGENT = `vts/${VERSION}`;

/** Epoch seconds as ISO 8601 UTC without fractions. */
export function isoSeconds(time: number): string {
  const d = new Date(time * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function webhookPayload(item: DeliveryItem): WebhookPayload {
  return {
    vehicleId: item.vehicleId,
    vehicleName: item.vehicleName,
    alertType: item.alertType,
    text: item.text,
    time: item.time,
    timeIso: isoSeconds(item.time),
    notificationId: item.notificationId,
  };
}

/** The exact body a webhook is posted with (what the signature covers). */
export function webhookBody(item: DeliveryItem): string {
  return JSON.stringify(webhookPayload(item));
}

/** The `X-Vts-Signature` value: `sha256=<hex HMAC-SHA256 of the body bytes with the secret>`. */
export function webhookSignature(body: string | Uint8Array, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The request headers of a webhook delivery. */
export function webhookHeaders(item: DeliveryItem, body: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (item.secret !== '') {
    headers['x-vts-signature'] = webhookSignature(body, item.secret);
    headers['x-vts-timestamp'] = String(item.time);
  }
  return headers;
}

/** A target URL made ready for fetch: user:password taken out as a Basic `Authorization`. */
export type TargetUrl = { ok: true; url: string; authorization?: string } | { ok: false; detail: string };

export function targetUrl(address: string): TargetUrl {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return { ok: false, detail: 'the target is not a URL: update it' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, detail: `the target is not an http(s) URL (${u.protocol}): update it` };
  if (u.username === '' && u.password === '') return { ok: true, url: u.href };
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(u.username);
    pass = decodeURIComponent(u.password);
  } catch {
    return { ok: false, detail: "the target URL's user or password is not well encoded: update it" };
  }
  u.username = '';
  u.password = '';
  return { ok: true, url: u.href, authorization: `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}` };
}

/** At most `max` bytes of an answer's body (the rest is not read). */
async function readSome(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  while (total < max) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    total += next.value.byteLength;
  }
  if (!done) await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** One line of a service's text for the history (at most 100 characters unless told). */
const oneLine = (text: string, max = 100): string => detailLine(text, max);

/** What an error answer says, briefly: a JSON `error`/`message`, or a plain text's first line. */
function answerExcerpt(res: Response, text: string): string {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      const body = JSON.parse(text) as unknown;
      if (typeof body === 'object' && body !== null) {
        const { error, message } = body as { error?: unknown; message?: unknown };
        if (typeof error === 'string' && error !== '') return oneLine(error);
        if (typeof message === 'string' && message !== '') return oneLine(message);
      }
    } catch {
      return '';
    }
    return '';
  }
  if (type.startsWith('text/plain')) return oneLine(text.split(/\r?\n/)[0] ?? '');
  return '';
}

/** A redirect's target without user info and query (they may hold secrets). */
function redirectTarget(location: string | null, base: string): string {
  if (location === null || location === '') return '';
  try {
    const u = new URL(location, base);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '';
  }
}

/**
 * POSTs `body` to a user's target and turns the answer into a result: 2xx delivered; 429, 5xx,
 * no answer: temporary (honouring Retry-After); a redirect: permanent (the URL is to be updated);
 * other statuses permanent.
 */
export async function postToTarget(
  address: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  now: () => number,
): Promise<SendResult> {
  const target = targetUrl(address);
  if (!target.ok) return { kind: 'permanent', detail: target.detail };
  const h = target.authorization === undefined ? headers : { ...headers, authorization: target.authorization };
  let res: Response;
  try {
    res = await fetch(target.url, { method: 'POST', headers: h, body, signal, redirect: 'manual' });
  } catch (err) {
    return requestFailed(err, signal);
  }
  const status = res.status;
  // the answer's body matters only when it says what went wrong
  let text = '';
  if (status >= 400) text = await readSome(res, 4096).catch(() => '');
  else await res.body?.cancel().catch(() => undefined);
  if (status >= 200 && status <= 299) return { kind: 'delivered', detail: `delivered (HTTP ${status})` };
  if (status >= 300 && status <= 399) {
    const to = redirectTarget(res.headers.get('location'), target.url);
    return { kind: 'permanent', detail: to !== '' ? `HTTP ${status}: redirected to ${to}: update the URL` : `HTTP ${status}: a redirect: update the URL` };
  }
  const excerpt = answerExcerpt(res, text);
  return statusResult(status, `HTTP ${status}${excerpt !== '' ? `: ${excerpt}` : ''}`, retryAfterSeconds(res.headers.get('retry-after'), now()));
}

/**
 * A provider of a user's own targets (webhook, ntfy): each delivery POSTed to its target's URL
 * (postToTarget) as `request` builds it.
 */
export function targetProvider(
  channel: 'webhook' | 'ntfy',
  request: (item: DeliveryItem) => { headers: Record<string, string>; body: string },
  deps: ProviderDeps,
): PushProvider {
  return {
    channel,
    description: 'on (per user targets)',
    batchSize: 1,
    async send(items, signal) {
      return Promise.all(
        items.map((item) => {
          const { headers, body } = request(item);
          return postToTarget(item.address, headers, body, signal, deps.now);
        }),
      );
    },
    async close() {
      // fetch keeps no connection of its own to close
    },
  };
}

export function createWebhookProvider(deps: ProviderDeps): PushProvider {
  return targetProvider(
    'webhook',
    (item) => {
      const body = webhookBody(item);
      return { headers: webhookHeaders(item, body), body };
    },
    deps,
  );
}
