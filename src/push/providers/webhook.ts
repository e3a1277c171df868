/**
 * Webhook targets (a user's own, `vts notify add <user> webhook <url> [--secret <s>]`): an HTTP
 * POST of a JSON document to the target's URL, signed with an HMAC-SHA256 header when the target
 * has a secret. Also the HTTP delivery the ntfy provider shares (`postToTarget`): the target URL's
 * user:password as Basic auth, redirects not followed, the answer's status class as a result, and
 * only addresses the operator allows (src/push/providers/address-policy.ts).
 */
import { createHmac } from 'node:crypto';
import { VERSION } from '../../util/version.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { addressPolicy, guardedLookup, isRefusal, literalAllowed, type AddressPolicy } from './address-policy.js';
import { detailLine } from './detail-line.js';
import { httpPoster, type HttpAnswer, type HttpPoster } from './http-post.js';
import { requestFailed, retryAfterSeconds, statusResult } from './http-result.js';

/** The most of an error answer kept (for the debug log). */
const MAX_ANSWER = 4096;

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
  /** A rule's alert only (issue 30): its kind (`soc-reached`, …, or `online`) and the rule's id. */
  event?: string;
  rule?: number;
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
    ...(item.event === null ? {} : { event: item.event, rule: item.rule ?? 0 }),
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

/** The class of an HTTP status, as a user's target's history shows it (`HTTP 4xx`). */
const statusClass = (status: number): string => `HTTP ${Math.floor(status / 100)}xx`;

/** What a user reads of an attempt that got no answer (however it failed). */
export const NO_ANSWER = 'no answer (could not connect, or no answer in time)';

/** What a user reads of an attempt to an address the server does not send to. */
export const NOT_ALLOWED =
  "not sent: the target's address is in a local or private network, which this server does not send to (its operator can allow it: --webhook-allow)";

/**
 * POSTs `body` to a user's target and turns the answer into a result: 2xx delivered; 429, 5xx,
 * no answer: temporary (honouring Retry-After); a redirect: permanent (the URL is to be updated);
 * other statuses permanent; an address the policy refuses: permanent, nothing sent. The result
 * says no more than the status class: a target may be any URL, and what answers there (a closed
 * port, a service that is not HTTP, what a server inside the network says) is none of the user's
 * business. The log (debug) has the whole of it.
 */
export async function postToTarget(
  http: HttpPoster,
  policy: AddressPolicy,
  address: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  deps: ProviderDeps,
): Promise<SendResult> {
  const target = targetUrl(address);
  if (!target.ok) return { kind: 'permanent', detail: target.detail };
  if (!literalAllowed(policy, new URL(target.url).hostname)) return { kind: 'permanent', detail: NOT_ALLOWED };
  const h = target.authorization === undefined ? headers : { ...headers, authorization: target.authorization };
  let res: HttpAnswer;
  try {
    res = await http.post(target.url, h, body, signal);
  } catch (err) {
    if (isRefusal(err)) return { kind: 'permanent', detail: NOT_ALLOWED };
    deps.log.debug({ err, detail: requestFailed(err, signal).detail }, 'push: a target did not answer');
    return { kind: 'temporary', detail: NO_ANSWER };
  }
  const status = res.status;
  if (status >= 200 && status <= 299) return { kind: 'delivered', detail: `delivered (${statusClass(status)})` };
  deps.log.debug({ status, answer: detailLine(res.body, 200) }, 'push: a target answered with an error');
  if (status >= 300 && status <= 399) return { kind: 'permanent', detail: `${statusClass(status)}: a redirect: update the URL` };
  return statusResult(status, statusClass(status), retryAfterSeconds(res.header('retry-after'), deps.now()));
}

/** Settings of the user target providers. */
export interface TargetSettings {
  /** `--webhook-allow` (parseAllowList): the local and private addresses targets may reach. */
  allow?: readonly string[];
}

/**
 * A provider of a user's own targets (webhook, ntfy): each delivery POSTed to its target's URL
 * (postToTarget) as `request` builds it.
 */
export function targetProvider(
  channel: 'webhook' | 'ntfy',
  request: (item: DeliveryItem) => { headers: Record<string, string>; body: string },
  deps: ProviderDeps,
  settings: TargetSettings = {},
): PushProvider {
  const policy = addressPolicy(settings.allow);
  const http = httpPoster(MAX_ANSWER, { lookup: guardedLookup(policy) });
  return {
    channel,
    // each target's server is an endpoint of its own: one that asks to slow down holds up no other
    endpointOf: (item) => {
      const t = targetUrl(item.address);
      return t.ok ? new URL(t.url).origin : '';
    },
    description: settings.allow?.length ? `on (per user targets; local addresses allowed: ${settings.allow.join(',')})` : 'on (per user targets; public addresses only)',
    batchSize: 1,
    async send(items, signal) {
      return Promise.all(
        items.map((item) => {
          const { headers, body } = request(item);
          return postToTarget(http, policy, item.address, headers, body, signal, deps);
        }),
      );
    },
    async close() {
      http.close();
    },
  };
}

export function createWebhookProvider(deps: ProviderDeps, settings: TargetSettings = {}): PushProvider {
  return targetProvider(
    'webhook',
    (item) => {
      const body = webhookBody(item);
      return { headers: webhookHeaders(item, body), body };
    },
    deps,
    settings,
  );
}
