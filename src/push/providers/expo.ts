/**
 * Expo push API (`expo` subscriptions, key type `simple`; docs/protocol/mp.md §12.1): up to 90
 * messages per POST to `/--/api/v2/push/send`, each answered with a ticket; the tickets' receipts
 * are checked later with POST `/--/api/v2/push/getReceipts`. A `send` may hold both kinds of
 * deliveries (state `pending`: send; state `receipt`: check the receipt `item.receipt`): the two
 * requests go out in parallel and the results come back in item order.
 */
import { vehicleLabel } from '../../core/push/message.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { httpPoster, type HttpAnswer } from './http-post.js';
import { requestFailed, retryAfterSeconds, statusResult } from './http-result.js';
import { detailLine } from './detail-line.js';

export interface ExpoSettings {
  /** The API's base URL (default https://exp.host). */
  url?: string;
  /** Expo's access token (the project's "enhanced security for push notifications"). */
  accessToken?: string;
}

export const EXPO_DEFAULT_URL = 'https://exp.host';
export const EXPO_BATCH_SIZE = 90;

/** One message of the send request, as the reference builds it (with the vehicle's label). */
export interface ExpoMessage {
  to: string;
  title: string;
  body: string;
  sound: 'default';
  badge: 0;
  data: { vehicleid: string; alerttype: string; sent: number };
}

/** The message a `pending` delivery is sent as. */
export function expoMessage(item: DeliveryItem): ExpoMessage {
  return {
    to: item.address,
    title: `Open Vehicles ${vehicleLabel(item.vehicleId, item.vehicleName)}`,
    body: item.text,
    sound: 'default',
    badge: 0,
    data: { vehicleid: item.vehicleId, alerttype: item.alertType, sent: item.time },
  };
}

/** Expo's tokens as they appear in its error messages (never in the history). */
const TOKEN_RE = /Expo(?:nent)?PushToken\[[^\]]*\]/g;

/** One line of a service's text for the history (at most 120 characters unless told). */
const oneLine = (text: string, max = 120): string => detailLine(text, max);

/** `{status:'error', message, details:{error}}` as one line without the token. */
function errorDetail(entry: Record<string, unknown>, address: string): { code: string; detail: string } {
  const details = entry.details as { error?: unknown } | undefined;
  const code = typeof details?.error === 'string' ? details.error : '';
  let message = typeof entry.message === 'string' ? entry.message : '';
  if (address !== '') message = message.split(address).join('<token>');
  message = message.replace(TOKEN_RE, '<token>');
  const detail = code !== '' && message !== '' ? `${code}: ${message}` : code || message || 'error without a message';
  return { code, detail: oneLine(detail) };
}

/** An Expo error entry (ticket or receipt) as a result; `what` is `ticket` or `receipt`. */
function errorResult(entry: Record<string, unknown>, address: string, what: string): SendResult {
  const { code, detail } = errorDetail(entry, address);
  const line = `${what} error ${detail}`;
  if (code === 'DeviceNotRegistered') return { kind: 'invalid', detail: line };
  if (code === 'MessageRateExceeded') return { kind: 'temporary', detail: line };
  return { kind: 'permanent', detail: line };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first of the top-level `errors` Expo sends with a request it refused as a whole. */
function requestErrors(body: unknown): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.errors) || body.errors.length === 0) return undefined;
  const first: unknown = body.errors[0];
  if (!isRecord(first)) return 'error';
  const code = typeof first.code === 'string' ? first.code : '';
  const message = typeof first.message === 'string' ? first.message.replace(TOKEN_RE, '<token>') : '';
  return oneLine(code !== '' && message !== '' ? `${code}: ${message}` : code || message || 'error');
}

/** The most of an answer read (bytes): tickets and receipts of a request of 90 messages fit many times. */
const MAX_ANSWER = 1024 * 1024;

type Answer = { ok: true; body: unknown; status: number } | { ok: false; result: SendResult };

export function createExpoProvider(s: ExpoSettings, deps: ProviderDeps): PushProvider {
  const base = (s.url ?? EXPO_DEFAULT_URL).replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (s.accessToken) headers.authorization = `Bearer ${s.accessToken}`;
  const http = httpPoster(MAX_ANSWER);

  /** One POST with its answer parsed, or the result for every item of a request that failed as a whole. */
  async function post(path: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    let res: HttpAnswer;
    try {
      res = await http.post(`${base}${path}`, headers, JSON.stringify(body), signal);
    } catch (err) {
      return { ok: false, result: requestFailed(err, signal) };
    }
    let parsed: unknown;
    try {
      parsed = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      parsed = undefined;
    }
    if (res.status < 200 || res.status > 299) {
      const why = requestErrors(parsed);
      const detail = `HTTP ${res.status}${why ? `: ${why}` : ''}`;
      return { ok: false, result: statusResult(res.status, detail, retryAfterSeconds(res.header('retry-after'), deps.now())) };
    }
    if (parsed === undefined) return { ok: false, result: { kind: 'temporary', detail: `HTTP ${res.status} without a JSON answer` } };
    return { ok: true, body: parsed, status: res.status };
  }

  async function sendMessages(items: readonly DeliveryItem[], signal: AbortSignal): Promise<SendResult[]> {
    const answer = await post('/--/api/v2/push/send', items.map(expoMessage), signal);
    if (!answer.ok) return items.map(() => answer.result);
    const body = answer.body;
    let data: unknown = isRecord(body) ? body.data : undefined;
    if (isRecord(data) && items.length === 1) data = [data];
    if (!Array.isArray(data)) {
      const why = requestErrors(body);
      // refused as a whole with a 200 (Expo does that for some request errors)
      if (why !== undefined) return items.map(() => ({ kind: 'permanent', detail: `refused: ${why}` }));
      return items.map(() => ({ kind: 'temporary', detail: 'answer without tickets' }));
    }
    return items.map((item, i): SendResult => {
      const entry: unknown = data[i];
      if (!isRecord(entry)) return { kind: 'temporary', detail: 'no ticket in the answer' };
      if (entry.status === 'ok' && typeof entry.id === 'string' && entry.id !== '') {
        return { kind: 'accepted', detail: `accepted (ticket ${oneLine(entry.id, 60)})`, receipt: entry.id };
      }
      if (entry.status === 'error') return errorResult(entry, item.address, 'ticket');
      return { kind: 'temporary', detail: 'unreadable ticket in the answer' };
    });
  }

  async function checkReceipts(items: readonly DeliveryItem[], signal: AbortSignal): Promise<SendResult[]> {
    const ids = [...new Set(items.map((i) => i.receipt))];
    const answer = await post('/--/api/v2/push/getReceipts', { ids }, signal);
    if (!answer.ok) {
      // The message was accepted: sending it again could deliver it twice. A receipt check that
      // failed for a moment is looked at again later; one the API refuses (4xx) is given up.
      const r = answer.result;
      if (r.kind === 'temporary') return items.map(() => ({ kind: 'wait', detail: `receipt check failed: ${r.detail}` }));
      return items.map(() => ({ kind: 'permanent', detail: `receipt check refused: ${r.detail}` }));
    }
    const data = isRecord(answer.body) ? answer.body.data : undefined;
    if (!isRecord(data)) {
      const why = requestErrors(answer.body);
      if (why !== undefined) return items.map(() => ({ kind: 'permanent', detail: `receipt check refused: ${why}` }));
      return items.map(() => ({ kind: 'wait', detail: 'receipt check answered without receipts' }));
    }
    return items.map((item): SendResult => {
      const entry = Object.hasOwn(data, item.receipt) ? data[item.receipt] : undefined;
      if (!isRecord(entry)) return { kind: 'wait', detail: 'receipt not there yet' };
      if (entry.status === 'ok') return { kind: 'delivered', detail: 'delivered (receipt ok)' };
      if (entry.status === 'error') return errorResult(entry, item.address, 'receipt');
      return { kind: 'wait', detail: 'unreadable receipt' };
    });
  }

  return {
    channel: 'expo',
    description: `on, ${base}${s.accessToken ? ', with an access token' : ''}`,
    batchSize: EXPO_BATCH_SIZE,
    async send(items, signal) {
      const toSend: number[] = [];
      const toCheck: number[] = [];
      const results: SendResult[] = new Array<SendResult>(items.length);
      items.forEach((item, i) => {
        if (item.state === 'pending') toSend.push(i);
        else if (item.receipt !== '') toCheck.push(i);
        else results[i] = { kind: 'permanent', detail: 'no ticket to check the receipt of' };
      });
      const pick = (idx: number[]): DeliveryItem[] => idx.map((i) => items[i] as DeliveryItem);
      const [sent, checked] = await Promise.all([
        toSend.length > 0 ? sendMessages(pick(toSend), signal) : Promise.resolve([]),
        toCheck.length > 0 ? checkReceipts(pick(toCheck), signal) : Promise.resolve([]),
      ]);
      toSend.forEach((idx, k) => (results[idx] = sent[k] as SendResult));
      toCheck.forEach((idx, k) => (results[idx] = checked[k] as SendResult));
      return results;
    },
    async close() {
      http.close();
    },
  };
}
