/**
 * Firebase Cloud Messaging, HTTP v1 API (issue 15), for the apps' `gcm`/`fcm` subscriptions. A
 * service-account JSON as Google issues it gives the project, the account and its RSA key; an
 * OAuth2 access token is got from its `token_uri` with a signed JWT (RS256) and cached until a
 * minute before it expires, one exchange at a time. The message is the reference's data message
 * (docs/protocol/mp.md §12.1) with the vehicle's name added.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { formatUtc } from '../../core/time.js';
import { VtsError } from '../../errors.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { fitText } from './apns.js';
import { httpPoster, type HttpAnswer } from './http-post.js';
import { requestFailed, retryAfterSeconds, statusResult } from './http-result.js';
import { loadRsaKey, signJwt, type JwtHeader } from './jwt.js';
import { detailLine } from './detail-line.js';

export interface FcmSettings {
  /** The service account's JSON key file (Firebase console: Project settings → Service accounts). */
  serviceAccountFile: string;
  /** Default Google's FCM host. */
  url?: string;
}

export const FCM_DEFAULT_URL = 'https://fcm.googleapis.com';
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** An access token is used until this long before it expires. */
export const FCM_TOKEN_MARGIN_MS = 60_000;
/** The most an OAuth token exchange may take (it is shared by every send waiting for it). */
const EXCHANGE_TIMEOUT_MS = 30_000;
/** FCM's limit on a data message's keys and values together (bytes). */
export const FCM_MAX_DATA = 4096;
/** The most of an answer read. */
const MAX_ANSWER = 64 * 1024;

/** What vts uses of a service-account JSON. */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: KeyObject;
  /** The key's id (`private_key_id`), sent as the JWT's `kid` when there is one. */
  privateKeyId: string;
  tokenUri: string;
}

function configError(detail: string, cause?: unknown): VtsError {
  return new VtsError('VTS_ERR_PUSH_CONFIG', `fcm: ${detail}`, cause === undefined ? undefined : { cause });
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Reads and checks a service-account JSON; throws VTS_ERR_PUSH_CONFIG naming the file and the
 * field at fault (never quoting the file: it holds the key).
 */
export function readServiceAccount(file: string): ServiceAccount {
  const hint = 'give the JSON key Google issues for a service account (--fcm-service-account)';
  if (!file) throw configError(`no service-account file: ${hint}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as { code?: unknown }).code ?? (err as Error).message;
    throw configError(`cannot read the service-account file ${file} (${String(why)}): check --fcm-service-account`, err);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined; // the parser's message quotes the file
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw configError(`the service-account file ${file} is not a JSON object: ${hint}`);
  }
  const doc = json as Record<string, unknown>;
  const field = (name: string): string => {
    const value = doc[name];
    if (typeof value !== 'string' || value.trim() === '') {
      throw configError(`the service-account file ${file} has no "${name}": ${hint}`);
    }
    return value.trim();
  };
  const projectId = field('project_id');
  const clientEmail = field('client_email');
  const pem = field('private_key');
  const tokenUri = field('token_uri');
  if (!isHttpUrl(tokenUri)) throw configError(`the "token_uri" of the service-account file ${file} is not an http(s) URL: ${hint}`);
  const loaded = loadRsaKey(pem);
  if (!loaded.ok) throw configError(`the "private_key" of the service-account file ${file} is not usable: ${loaded.why}; ${hint}`);
  const keyId = doc.private_key_id;
  return { projectId, clientEmail, privateKey: loaded.key, privateKeyId: typeof keyId === 'string' ? keyId : '', tokenUri };
}

/** The reference's time text of a notification: `YYYY-MM-DD HH:MM:SS` UTC. */
export function fcmTimestamp(epochSeconds: number): string {
  return formatUtc(epochSeconds);
}

type MessageFields = Pick<DeliveryItem, 'address' | 'vehicleId' | 'vehicleName' | 'alertType' | 'text' | 'time'>;

/** The body of `messages:send`; every data value a string, as FCM wants. */
export interface FcmMessage {
  message: {
    token: string;
    data: { type: string; time: string; title: string; message: string; vehiclename: string };
    android: { collapse_key: string; priority: 'high' };
  };
}

function dataSize(data: Record<string, string>): number {
  let size = 0;
  for (const [k, v] of Object.entries(data)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  return size;
}

/**
 * The reference's message for one subscription: data `{type, time, title: <vehicle id>, message,
 * vehiclename}`, android `collapse_key` = hex SHA-256 of type‖time‖vehicle id‖text (the whole
 * text, as the reference), priority high. A text too long for FCM's 4 KB is cut with `…`.
 */
export function fcmMessage(item: MessageFields): FcmMessage {
  const time = fcmTimestamp(item.time);
  const collapseKey = createHash('sha256').update(`${item.alertType}${time}${item.vehicleId}${item.text}`).digest('hex');
  const data = (message: string) => ({ type: item.alertType, time, title: item.vehicleId, message, vehiclename: item.vehicleName });
  const message = fitText(item.text, (t) => dataSize(data(t)) <= FCM_MAX_DATA);
  return { message: { token: item.address, data: data(message), android: { collapse_key: collapseKey, priority: 'high' } } };
}

/** `fcmMessage` as the JSON text sent. */
export function fcmPayload(item: MessageFields): string {
  return JSON.stringify(fcmMessage(item));
}

/** One line of a service's text for the history (at most 160 characters unless told). */
const oneLine = (text: string, max = 160): string => detailLine(text, max);

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A Google API error (`{"error":{"code","message","status","details":[{"errorCode"}]}}`), if the answer is one. */
interface GoogleError {
  status: string;
  errorCode: string;
  message: string;
}

function googleError(body: string): GoogleError | undefined {
  const error = parseJson(body)?.error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return undefined;
  const e = error as { status?: unknown; message?: unknown; details?: unknown };
  let errorCode = '';
  if (Array.isArray(e.details)) {
    for (const d of e.details as unknown[]) {
      const code = (d as { errorCode?: unknown } | null)?.errorCode;
      if (typeof code === 'string') errorCode = code;
    }
  }
  return {
    status: typeof e.status === 'string' ? e.status : '',
    errorCode,
    message: typeof e.message === 'string' ? e.message : '',
  };
}

const NOT_A_VALID_TOKEN = /registration token is not a valid|not a valid FCM registration token/i;

type Access = { ok: true; token: string } | { ok: false; result: SendResult };

/** Resolves with `promise`, or 'aborted' as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export function createFcmProvider(s: FcmSettings, deps: ProviderDeps): PushProvider {
  const account = readServiceAccount(s.serviceAccountFile);
  const base = s.url !== undefined && s.url !== '' ? s.url.replace(/\/+$/, '') : FCM_DEFAULT_URL;
  if (!isHttpUrl(base)) throw configError(`${s.url ?? ''} is not an http(s) URL: check --fcm-url`);
  const sendUrl = `${base}/v1/projects/${encodeURIComponent(account.projectId)}/messages:send`;
  let cached: { token: string; until: number } | undefined;
  let pending: Promise<Access> | undefined;
  const http = httpPoster(MAX_ANSWER);

  async function exchange(): Promise<Access> {
    const startedAt = deps.now();
    const iat = Math.floor(startedAt / 1000);
    const header: JwtHeader = { alg: 'RS256', typ: 'JWT' };
    if (account.privateKeyId) header.kid = account.privateKeyId;
    const assertion = signJwt(
      header,
      { iss: account.clientEmail, scope: FCM_SCOPE, aud: account.tokenUri, iat, exp: iat + 3600 },
      account.privateKey,
    );
    const signal = AbortSignal.timeout(EXCHANGE_TIMEOUT_MS);
    let res: HttpAnswer;
    try {
      res = await http.post(
        account.tokenUri,
        { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        signal,
      );
    } catch (err) {
      const failed = requestFailed(err, signal);
      return { ok: false, result: { ...failed, detail: `OAuth token exchange: ${failed.detail}` } };
    }
    const doc = parseJson(res.body);
    if (res.status >= 200 && res.status <= 299) {
      const token = doc?.access_token;
      const expiresIn = typeof doc?.expires_in === 'number' ? doc.expires_in : Number(doc?.expires_in ?? 3600);
      if (typeof token !== 'string' || token === '' || !Number.isFinite(expiresIn)) {
        return { ok: false, result: { kind: 'temporary', detail: `OAuth token exchange: ${res.status} without an access token` } };
      }
      cached = { token, until: startedAt + expiresIn * 1000 - FCM_TOKEN_MARGIN_MS };
      return { ok: true, token };
    }
    const error = typeof doc?.error === 'string' ? doc.error : '';
    const description = typeof doc?.error_description === 'string' ? oneLine(doc.error_description) : '';
    const what = `OAuth token exchange: ${res.status}${error ? ` ${oneLine(error, 60)}` : ''}${description ? `: ${description}` : ''}`;
    return { ok: false, result: statusResult(res.status, what, retryAfterSeconds(res.header('retry-after'), deps.now())) };
  }

  /** The cached access token, or the one the exchange under way (or a new one) brings. */
  function accessToken(): Promise<Access> {
    if (cached !== undefined && deps.now() < cached.until) return Promise.resolve({ ok: true, token: cached.token });
    if (pending === undefined) {
      const started = exchange()
        .catch((err: unknown): Access => ({ ok: false, result: { kind: 'temporary', detail: `OAuth token exchange: ${oneLine(String(err))}` } }))
        .finally(() => {
          if (pending === started) pending = undefined;
        });
      pending = started;
    }
    return pending;
  }

  function answer(status: number, body: string, retryAfter: number | undefined, token: string): SendResult {
    if (status >= 200 && status < 300) {
      const name = parseJson(body)?.name;
      const id = typeof name === 'string' ? name.slice(name.lastIndexOf('/') + 1) : '';
      return { kind: 'delivered', detail: id ? `delivered (message ${oneLine(id, 80)})` : 'delivered' };
    }
    const error = googleError(body);
    const label = error?.errorCode || error?.status || '';
    const what = `FCM ${status}${label ? ` ${label}` : ''}${error?.message ? `: ${oneLine(error.message)}` : ''}`;
    if (error !== undefined) {
      if (error.errorCode === 'UNREGISTERED' || error.status === 'UNREGISTERED') return { kind: 'invalid', detail: what };
      // a Google 404 is the token's (a wrong URL's 404 is not a Google error: no subscription goes for it)
      if (status === 404 && error.status === 'NOT_FOUND') return { kind: 'invalid', detail: what };
      if (status === 400 && NOT_A_VALID_TOKEN.test(error.message)) return { kind: 'invalid', detail: what };
      if (status === 403 && (error.errorCode === 'SENDER_ID_MISMATCH' || error.status === 'SENDER_ID_MISMATCH')) {
        return { kind: 'invalid', detail: what };
      }
    }
    if (status === 401) {
      if (cached?.token === token) cached = undefined;
      return retryAfter === undefined
        ? { kind: 'temporary', detail: `${what} (access token dropped)` }
        : { kind: 'temporary', detail: `${what} (access token dropped)`, retryAfter };
    }
    return statusResult(status, what, retryAfter);
  }

  async function sendOne(item: DeliveryItem, signal: AbortSignal): Promise<SendResult> {
    const access = await unlessAborted(accessToken(), signal);
    if (access === 'aborted') return { kind: 'temporary', detail: 'no answer in time' };
    if (!access.ok) return access.result;
    try {
      const headers = { authorization: `Bearer ${access.token}`, 'content-type': 'application/json; charset=utf-8' };
      const res = await http.post(sendUrl, headers, fcmPayload(item), signal);
      return answer(res.status, res.body, retryAfterSeconds(res.header('retry-after'), deps.now()), access.token);
    } catch (err) {
      return requestFailed(err, signal);
    }
  }

  return {
    channel: 'fcm',
    description: `on, ${base}, project ${account.projectId}`,
    batchSize: 1,
    send(items, signal) {
      return Promise.all(items.map((item) => sendOne(item, signal)));
    },
    async close() {
      cached = undefined;
      http.close();
    },
  };
}
