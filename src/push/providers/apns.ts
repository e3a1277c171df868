/**
 * Apple Push Notification service (issue 15): HTTP/2 with token authentication (a `.p8` key, its
 * key id, the team id; a JWT ES256 reused for 50 minutes), one session per host kept open and
 * reopened when it closes. `sandbox` subscriptions go to Apple's sandbox host, every other one to
 * production; a configured URL serves both. The payload is the reference's (docs/protocol/mp.md §12.1)
 * with the vehicle named by `vehicleLabel`.
 */
import { readFileSync } from 'node:fs';
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { rootCertificates } from 'node:tls';
import type { KeyObject } from 'node:crypto';
import { VtsError } from '../../errors.js';
import { vehicleLabel } from '../../core/push/message.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { requestFailed, retryAfterSeconds, statusResult } from './http-result.js';
import { loadEcP256Key, signJwt } from './jwt.js';

export interface ApnsSettings {
  /** The `.p8` file (PKCS#8 PEM, EC P-256) Apple issues for a push key. */
  keyFile: string;
  /** The key's id (10 characters, shown next to the key in Apple's developer account). */
  keyId: string;
  /** The developer team id. */
  teamId: string;
  /** The app's bundle id (`apns-topic`), e.g. `com.openvehicles.ovms`. */
  topic: string;
  /** Serves production and sandbox subscriptions alike (tests, a relay); default Apple's hosts. */
  url?: string;
}

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';
/** How long one provider token is used: Apple wants a new one at least hourly, at most every 20 minutes. */
export const APNS_TOKEN_REUSE_MS = 50 * 60_000;
/** The largest payload APNs takes for an alert (bytes). */
export const APNS_MAX_PAYLOAD = 4096;

/** Reasons that say the device token will never work for this app: the subscription goes. */
const INVALID_REASONS = new Set(['BadDeviceToken', 'Unregistered', 'DeviceTokenNotForTopic']);
/** The most of an error answer read (APNs sends a small JSON document). */
const MAX_ANSWER = 16 * 1024;

type PayloadFields = Pick<DeliveryItem, 'vehicleId' | 'vehicleName' | 'alertType' | 'text' | 'time'>;

/**
 * `text`, or its longest prefix (whole code points) followed by `…` for which `fits` holds; ''
 * when not even that fits. For payload size limits: a `run` output can be longer than a push.
 */
export function fitText(text: string, fits: (candidate: string) => boolean): string {
  if (fits(text)) return text;
  const chars = Array.from(text);
  let lo = 0; // fits (or is the empty answer)
  let hi = chars.length; // does not fit
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(`${chars.slice(0, mid).join('')}…`)) lo = mid;
    else hi = mid;
  }
  const best = `${chars.slice(0, lo).join('')}…`;
  return lo > 0 || fits(best) ? best : '';
}

/**
 * The JSON body of a notification, as the reference sends it with the vehicle's label:
 * `{"aps":{"alert":"<label>\n<text>","badge":0,"sound":"default"},"vehicleid":…,"alerttype":…,"time":<epoch s>}`.
 * A text too long for APNs is cut (with `…`) to fit its 4 KB.
 */
export function apnsPayload(item: PayloadFields): string {
  const label = vehicleLabel(item.vehicleId, item.vehicleName);
  const build = (text: string): string =>
    JSON.stringify({
      aps: { alert: `${label}\n${text}`, badge: 0, sound: 'default' },
      vehicleid: item.vehicleId,
      alerttype: item.alertType,
      time: item.time,
    });
  return build(fitText(item.text, (t) => Buffer.byteLength(build(t)) <= APNS_MAX_PAYLOAD));
}

/** The host a subscription of `keyType` is sent to: the configured URL, else sandbox or production. */
export function apnsUrl(s: Pick<ApnsSettings, 'url'>, keyType: string): string {
  if (s.url !== undefined && s.url !== '') return new URL(s.url).origin;
  return keyType === 'sandbox' ? APNS_SANDBOX_URL : APNS_PRODUCTION_URL;
}

function configError(detail: string, cause?: unknown): VtsError {
  return new VtsError('VTS_ERR_PUSH_CONFIG', `apns: ${detail}`, cause === undefined ? undefined : { cause });
}

/** The key, checked settings; throws VTS_ERR_PUSH_CONFIG saying what to fix (never quoting the key). */
function checkSettings(s: ApnsSettings): KeyObject {
  if (!s.keyFile) throw configError('no key file: give the .p8 file of an APNs key (--apns-key)');
  let pem: string;
  try {
    pem = readFileSync(s.keyFile, 'utf8');
  } catch (err) {
    const why = (err as { code?: unknown }).code ?? (err as Error).message;
    throw configError(`cannot read the key file ${s.keyFile} (${String(why)}): check --apns-key`, err);
  }
  const loaded = loadEcP256Key(pem);
  if (!loaded.ok) {
    throw configError(`the key file ${s.keyFile} is not an APNs key: ${loaded.why}; give the .p8 file Apple issued (--apns-key)`);
  }
  if (!s.keyId.trim()) throw configError("no key id: give the .p8 key's 10-character id (--apns-key-id)");
  if (!s.teamId.trim()) throw configError('no team id: give the Apple developer team id (--apns-team-id)');
  if (!s.topic.trim()) throw configError("no topic: give the app's bundle id, e.g. com.openvehicles.ovms (--apns-topic)");
  if (s.url !== undefined && s.url !== '') {
    let url: URL | undefined;
    try {
      url = new URL(s.url);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw configError(`${s.url} is not an http(s) URL: check --apns-url`);
    }
  }
  return loaded.key;
}

/** One value of an answer's header. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function reasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    return typeof parsed?.reason === 'string' ? parsed.reason.replace(/[^\w.-]/g, '').slice(0, 80) : '';
  } catch {
    return '';
  }
}

export function createApnsProvider(s: ApnsSettings, deps: ProviderDeps): PushProvider {
  const key = checkSettings(s);
  const keyId = s.keyId.trim();
  const teamId = s.teamId.trim();
  const topic = s.topic.trim();
  const ca = deps.ca ? [...rootCertificates, deps.ca] : undefined;
  const sessions = new Map<string, ClientHttp2Session>();
  let token: { jwt: string; issuedAt: number } | undefined;
  let closed = false;

  /** The provider token: the current one while younger than 50 minutes, else a new one. */
  function providerToken(): string {
    const now = deps.now();
    if (token !== undefined && now >= token.issuedAt && now - token.issuedAt < APNS_TOKEN_REUSE_MS) return token.jwt;
    const jwt = signJwt({ alg: 'ES256', kid: keyId }, { iss: teamId, iat: Math.floor(now / 1000) }, key);
    token = { jwt, issuedAt: now };
    return jwt;
  }

  /** APNs said the token expired: the next request gets a new one (once, however many said so). */
  function renew(used: string): void {
    if (token?.jwt === used) token = undefined;
  }

  /** The open session to `origin`, or a new one (after a close, an error or a GOAWAY). */
  function session(origin: string): ClientHttp2Session {
    const open = sessions.get(origin);
    if (open !== undefined && !open.closed && !open.destroyed) return open;
    const created = connect(origin, ca === undefined ? {} : { ca });
    sessions.set(origin, created);
    const forget = (): void => {
      if (sessions.get(origin) === created) sessions.delete(origin);
    };
    created.on('error', (err) => {
      forget();
      deps.log.debug({ err, origin }, 'apns: connection failed');
    });
    created.on('goaway', forget);
    created.on('close', forget);
    return created;
  }

  function answer(status: number, headers: IncomingHttpHeaders, body: string, jwt: string): SendResult {
    if (status === 200) {
      const id = header(headers, 'apns-id');
      return { kind: 'delivered', detail: id ? `delivered (apns-id ${id})` : 'delivered' };
    }
    const reason = reasonOf(body);
    const what = `APNs ${status}${reason ? ` ${reason}` : ''}`;
    if (status === 410 || (status === 400 && INVALID_REASONS.has(reason))) return { kind: 'invalid', detail: what };
    if (status === 403 && reason === 'ExpiredProviderToken') {
      renew(jwt);
      return { kind: 'temporary', detail: `${what} (token renewed)` };
    }
    // APNs's 429 is about one device token (too many to it): only its own delivery waits
    return statusResult(status, what, retryAfterSeconds(header(headers, 'retry-after'), deps.now()), [503]);
  }

  function sendOne(item: DeliveryItem, signal: AbortSignal): Promise<SendResult> {
    if (closed) return Promise.resolve({ kind: 'temporary', detail: 'apns provider closed' });
    if (signal.aborted) return Promise.resolve({ kind: 'temporary', detail: 'no answer in time' });
    return post(apnsUrl(s, item.keyType), `/3/device/${encodeURIComponent(item.address)}`, apnsPayload(item), signal, false);
  }

  /**
   * One request. A connection kept from before that turns out dead (the stream fails before any
   * answer: the host dropped it without a GOAWAY) is replaced and the request made once more on
   * the new one, rather than costing the notification a retry delay.
   */
  function post(origin: string, path: string, payload: string, signal: AbortSignal, again: boolean): Promise<SendResult> {
    const jwt = providerToken();
    return new Promise<SendResult>((resolve) => {
      let done = false;
      let onAbort = (): void => {};
      const finish = (result: SendResult | Promise<SendResult>): void => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      let sess: ClientHttp2Session;
      let stream: ClientHttp2Stream;
      let reused: boolean;
      try {
        reused = sessions.has(origin);
        sess = session(origin);
        reused &&= !sess.connecting;
        stream = sess.request({
          ':method': 'POST',
          ':path': path,
          authorization: `bearer ${jwt}`,
          'apns-topic': topic,
          'apns-push-type': 'alert',
          'apns-priority': '10',
          'content-type': 'application/json',
        });
      } catch (err) {
        finish(requestFailed(err, signal));
        return;
      }
      onAbort = () => {
        finish({ kind: 'temporary', detail: 'no answer in time' });
        if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
        // a host that never completed the handshake: start afresh next time
        if (sess.connecting) sess.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const failed = (result: SendResult): void => {
        if (status === 0 && reused && !again && !signal.aborted && !closed) {
          finish(post(origin, path, payload, signal, true));
        } else {
          finish(result);
        }
      };
      stream.on('response', (h) => {
        headers = h;
        status = Number(h[':status']);
      });
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER) chunks.push(chunk);
      });
      stream.on('end', () => finish(answer(status, headers, Buffer.concat(chunks).toString('utf8'), jwt)));
      stream.on('error', (err) => failed(requestFailed(err, signal)));
      stream.on('close', () => {
        if (status !== 0) finish(answer(status, headers, Buffer.concat(chunks).toString('utf8'), jwt));
        else failed({ kind: 'temporary', detail: `connection failed (stream closed, code ${stream.rstCode ?? 0})` });
      });
      stream.end(payload);
    });
  }

  const description =
    s.url !== undefined && s.url !== ''
      ? `on, ${apnsUrl(s, 'production')}, topic ${topic}`
      : `on, ${APNS_PRODUCTION_URL} (sandbox: ${APNS_SANDBOX_URL}), topic ${topic}`;

  return {
    channel: 'apns',
    description,
    batchSize: 1,
    send(items, signal) {
      return Promise.all(items.map((item) => sendOne(item, signal)));
    },
    async close() {
      closed = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        open.map(
          (sess) =>
            new Promise<void>((resolve) => {
              if (sess.destroyed) return resolve();
              // streams still open (a host that hangs) do not hold the shutdown up for long
              const timer = setTimeout(() => sess.destroy(), 1000);
              timer.unref();
              sess.close(() => {
                clearTimeout(timer);
                resolve();
              });
            }),
        ),
      );
    },
  };
}
