/**
 * The client of the vts HTTP API for the dashboard: same-origin calls authenticated by the session
 * cookie, the CSRF token (kept in memory only) on every state-changing call, typed bodies, and
 * errors as ApiError with a message fit for the page.
 */
import type {
  AbrpLinkInfo,
  AlertRuleInput,
  AlertRuleRow,
  AlertSettings,
  BatteryReport,
  Charge,
  ChargeDetail,
  CommandResult,
  Drive,
  DriveDetail,
  CommandType,
  HistoricalRow,
  HistoryBody,
  NewToken,
  NotificationEntry,
  NotifyTargetRow,
  OverviewRow,
  Place,
  PlaceInput,
  PushSubscriptionRow,
  SessionInfo,
  StatsPeriod,
  StatsRow,
  TargetKind,
  TokenRow,
  V2Body,
  WebConfig,
  IntegrationsInfo,
} from './types';
import { errorSentence } from './error-text';

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server could not be reached */
    readonly status: number,
    /** `VTS_ERR_…` from a JSON error body, else `HTTP_<status>` (or `NETWORK`) */
    readonly code: string,
    /** a sentence for the page (error-text.ts) */
    message: string,
    /** the server's own words (the `message` of a JSON error body, or the text of the answer) */
    readonly detail = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** `HTTP 409 VTS_ERR_NOT_CONNECTED: vehicle not connected`, for a tooltip or a log. */
  get technical(): string {
    const head = this.status ? `HTTP ${this.status} ${this.code}` : this.code;
    return this.detail ? `${head}: ${this.detail}` : head;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface CallOptions {
  method?: Method;
  /** a JSON body */
  json?: unknown;
  /** false: a 401 is the caller's business (sign-in, session probe), not "the session ended" */
  sessionCall?: boolean;
}

let csrf: string | null = null;
let user: string | null = null;
/** whether the session may use the operator's page */
let admin = false;
/** the session's sliding expiry (seconds) */
let timeout = 180;
let unauthorized: (() => void) | null = null;

/** The signed-in user's name, or null. */
export function currentUser(): string | null {
  return user;
}

/** Whether the signed-in user may open the Admin section. */
export function isAdmin(): boolean {
  return user !== null && admin;
}

/** Seconds of disuse after which the server ends the session. */
export function sessionTimeout(): number {
  return timeout;
}

function adopt(s: SessionInfo): SessionInfo {
  csrf = s.csrf;
  user = s.user;
  admin = s.admin === true;
  if (typeof s.timeout === 'number' && s.timeout > 0) timeout = s.timeout;
  return s;
}

/** Called when a call is refused with 401: the session has ended. */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

const enc = encodeURIComponent;

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (res.status === 204 || text === '') return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // a few API v2 answers say JSON but are text (`Disconnect OK`)
    }
  }
  return text;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && 'error' in body) {
      const { error, message } = body as { error: unknown; message?: unknown };
      const code = typeof error === 'string' ? error : `HTTP_${res.status}`;
      const detail = typeof message === 'string' ? message : '';
      return new ApiError(res.status, code, errorSentence(res.status, code, detail), detail);
    }
  } catch {
    // plain text
  }
  // API v2 errors are one line of plain text ("Forbidden", "Authentication failed")
  const t = text.trim();
  const detail = t.length < 200 && !t.startsWith('<') ? t : '';
  const code = `HTTP_${res.status}`;
  return new ApiError(res.status, code, errorSentence(res.status, code, detail), detail);
}

async function call<T>(path: string, opts: CallOptions = {}, retried = false): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', errorSentence(0, 'NETWORK'));
  }
  if (res.ok) return (await readBody(res)) as T;
  const err = await toError(res);
  // the CSRF token changes when the session does (another tab signed in again): fetch it, retry once
  if (err.status === 403 && err.code === 'VTS_ERR_CSRF' && !retried && (await loadSession())) {
    return call<T>(path, opts, true);
  }
  if (err.status === 401 && opts.sessionCall !== true) {
    csrf = null;
    user = null;
    unauthorized?.();
  }
  throw err;
}

/** The authenticated call, for the API clients of other parts of the dashboard (sharing-api.ts). */
export { call as apiCall };

// --- sessions (docs/web-api.md) ---

/** The current session (user and CSRF token), or null when not signed in. */
export async function loadSession(): Promise<SessionInfo | null> {
  try {
    return adopt(await call<SessionInfo>('/api/session', { sessionCall: true }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      csrf = null;
      user = null;
      return null;
    }
    throw err;
  }
}

/**
 * Checks that the session is still alive; on a 401 the "session ended" handler runs (the live
 * stream uses this when its connection is refused, as EventSource does not tell why).
 */
export async function checkSession(): Promise<boolean> {
  try {
    adopt(await call<SessionInfo>('/api/session'));
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return false;
    throw err;
  }
}

/** Signs in; `code`: the TOTP or recovery code of an account that asks for one (`VTS_ERR_TOTP_REQUIRED`). */
export async function signIn(username: string, password: string, code?: string): Promise<SessionInfo> {
  try {
    const json = code === undefined ? { username, password } : { username, password, code };
    return adopt(await call<SessionInfo>('/api/session', { method: 'POST', json, sessionCall: true }));
  } catch (err) {
    // the second factor's answers keep their own sentences (the page asks for the code)
    if (err instanceof ApiError && err.status === 401 && err.code !== 'VTS_ERR_TOTP_REQUIRED' && err.code !== 'VTS_ERR_TOTP_INVALID') {
      throw new ApiError(401, err.code, 'Wrong user name or password.', err.detail);
    }
    throw err;
  }
}

/**
 * A call of the account's security part (web/src/security-api.ts): the same client, with its
 * session handling; `sessionCall` for the calls whose 401 is a wrong code, not a session ended.
 */
export const securityCall = <T>(path: string, opts: CallOptions = {}): Promise<T> => call<T>(path, opts);

/** Adopts the session a sign-in other than the password's opened (a passkey's). */
export const adoptSession = (s: SessionInfo): SessionInfo => adopt(s);

export async function signOut(): Promise<void> {
  try {
    await call<void>('/api/session', { method: 'DELETE', sessionCall: true });
  } finally {
    csrf = null;
    user = null;
  }
}

// --- vehicles ---

export const overview = (): Promise<OverviewRow[]> => call('/api/overview');

export const status = (id: string): Promise<V2Body> => call(`/api/status/${enc(id)}`);
export const charge = (id: string): Promise<V2Body> => call(`/api/charge/${enc(id)}`);
export const location = (id: string): Promise<V2Body> => call(`/api/location/${enc(id)}`);
export const tpms = (id: string): Promise<V2Body> => call(`/api/tpms/${enc(id)}`);

/** Historical records of one type (e.g. `*-Log-Notification`) since a UTC time `YYYY-MM-DD HH:MM:SS`. */
export function historical(id: string, type: string, since?: string): Promise<HistoricalRow[]> {
  const q = since ? `?since=${enc(since)}` : '';
  return call(`/api/historical/${enc(id)}/${enc(type)}${q}`);
}

/** Chart series and trips between two epoch-second times. */
export function history(id: string, from: number, to: number): Promise<HistoryBody> {
  return call(`/api/history/${enc(id)}?from=${Math.floor(from)}&to=${Math.ceil(to)}`);
}

/** The URL of the live stream (Server-Sent Events, cookie authenticated). */
export const liveUrl = (id: string): string => `/api/live/${enc(id)}`;

export function command(id: string, text: string, type: CommandType): Promise<CommandResult> {
  return call(`/api/command/${enc(id)}`, { method: 'POST', json: { command: text, type } });
}

// --- drives, charges, battery, stats, places (docs/web-api.md "Drives and charges") ---

const span = (from: number, to: number) => `from=${Math.floor(from)}&to=${Math.ceil(to)}`;

export function drives(id: string, from: number, to: number): Promise<Drive[]> {
  return call(`/api/drives/${enc(id)}?${span(from, to)}`);
}

export const drive = (id: string, driveId: number): Promise<DriveDetail> => call(`/api/drives/${enc(id)}/${driveId}`);

/** The links the page offers for download (the session cookie authenticates them). */
export const drivesCsvUrl = (id: string, from: number, to: number): string => `/api/drives/${enc(id)}?${span(from, to)}&format=csv`;
export const driveGpxUrl = (id: string, driveId: number): string => `/api/drives/${enc(id)}/${driveId}/gpx`;
export const chargesCsvUrl = (id: string, from: number, to: number): string => `/api/charges/${enc(id)}?${span(from, to)}&format=csv`;

export function charges(id: string, from: number, to: number): Promise<Charge[]> {
  return call(`/api/charges/${enc(id)}?${span(from, to)}`);
}

export const chargeDetail = (id: string, chargeId: number): Promise<ChargeDetail> => call(`/api/charges/${enc(id)}/${chargeId}`);

export const battery = (id: string): Promise<BatteryReport> => call(`/api/battery/${enc(id)}`);

export const integrations = (id: string): Promise<IntegrationsInfo> => call(`/api/integrations/${enc(id)}`);

export function stats(id: string, period: StatsPeriod, from: number, to: number, tz: string): Promise<StatsRow[]> {
  return call(`/api/stats/${enc(id)}?period=${period}&${span(from, to)}&tz=${enc(tz)}`);
}

export const places = (): Promise<Place[]> => call('/api/places');

export function savePlace(place: PlaceInput, id?: number): Promise<Place> {
  return id === undefined ? call('/api/places', { method: 'POST', json: place }) : call(`/api/places/${id}`, { method: 'PUT', json: place });
}

export async function removePlace(id: number): Promise<void> {
  await call<unknown>(`/api/places/${id}`, { method: 'DELETE' });
}

// --- ABRP (docs/web-api.md "ABRP") ---

export const abrpLink = (vehicleId: string): Promise<AbrpLinkInfo> => call(`/api/abrp/${enc(vehicleId)}`);

export function linkAbrp(vehicleId: string, token: string): Promise<AbrpLinkInfo> {
  return call(`/api/abrp/${enc(vehicleId)}`, { method: 'PUT', json: { token } });
}

export async function unlinkAbrp(vehicleId: string): Promise<void> {
  await call<unknown>(`/api/abrp/${enc(vehicleId)}`, { method: 'DELETE' });
}

// --- alerts the server computes (docs/alerts.md) ---

/** The vehicle's alert rules, ordered by id. */
export const alertRules = (vehicleId: string): Promise<AlertRuleRow[]> => call(`/api/alerts/${enc(vehicleId)}`);

/** Adds a rule, or replaces rule `id` (its kind may change too). */
export function saveAlertRule(vehicleId: string, rule: AlertRuleInput, id?: number): Promise<AlertRuleRow> {
  const path = `/api/alerts/${enc(vehicleId)}`;
  return id === undefined ? call(path, { method: 'POST', json: rule }) : call(`${path}/${id}`, { method: 'PUT', json: rule });
}

export async function removeAlertRule(vehicleId: string, id: number): Promise<void> {
  await call<unknown>(`/api/alerts/${enc(vehicleId)}/${id}`, { method: 'DELETE' });
}

/** The owner's alert settings (quiet hours), for all their vehicles. */
export const alertSettings = (): Promise<AlertSettings> => call('/api/alerts');

export function saveAlertSettings(settings: AlertSettings): Promise<AlertSettings> {
  return call('/api/alerts', { method: 'PUT', json: settings });
}

// --- account ---

export const tokens = (): Promise<TokenRow[]> => call('/api/token');

export function createToken(application: string, purpose: string, permit: string): Promise<NewToken> {
  return call('/api/token', { method: 'POST', json: { application, purpose, permit } });
}

export async function revokeToken(hash: string): Promise<void> {
  await call<unknown>(`/api/token/${enc(hash)}`, { method: 'DELETE' });
}

export async function changePassword(current: string, next: string): Promise<void> {
  await call<unknown>('/api/password', { method: 'POST', json: { current, new: next } });
}

// --- push notifications ---

/** The apps' subscriptions of every vehicle of the user, or of one. */
export function pushSubscriptions(vehicleId?: string): Promise<PushSubscriptionRow[]> {
  return call(vehicleId === undefined ? '/api/push/subscriptions' : `/api/push/subscriptions/${enc(vehicleId)}`);
}

export async function deletePushSubscription(vehicleId: string, appId: string): Promise<void> {
  await call<unknown>(`/api/push/subscriptions/${enc(vehicleId)}/${enc(appId)}`, { method: 'DELETE' });
}

export const notifyTargets = (): Promise<NotifyTargetRow[]> => call('/api/push/targets');

/** Adds a webhook or ntfy target; `secret` ('' none) signs a webhook's requests. */
export function addNotifyTarget(kind: TargetKind, url: string, secret: string): Promise<NotifyTargetRow> {
  return call('/api/push/targets', { method: 'POST', json: secret === '' ? { kind, url } : { kind, url, secret } });
}

export async function removeNotifyTarget(id: number): Promise<void> {
  await call<unknown>(`/api/push/targets/${id}`, { method: 'DELETE' });
}

/** The vehicle's newest notifications with their deliveries and attempts, newest first. */
export function notificationHistory(vehicleId: string, limit = 50): Promise<NotificationEntry[]> {
  return call(`/api/notifications/${enc(vehicleId)}?limit=${limit}`);
}

// --- the dashboard's own configuration ---

const DEFAULT_CONFIG: WebConfig = {
  tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  tileAttribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
};

let configPromise: Promise<WebConfig> | null = null;

/** `GET /web/config.json` (the map tile URL), once; the defaults when it cannot be read. */
export function webConfig(): Promise<WebConfig> {
  configPromise ??= fetch('/web/config.json', { credentials: 'same-origin' })
    .then(async (res) => {
      if (!res.ok) return DEFAULT_CONFIG;
      const body = (await res.json()) as Partial<WebConfig>;
      return {
        tileUrl: typeof body.tileUrl === 'string' ? body.tileUrl : DEFAULT_CONFIG.tileUrl,
        tileAttribution: typeof body.tileAttribution === 'string' ? body.tileAttribution : '',
      };
    })
    .catch(() => DEFAULT_CONFIG);
  return configPromise;
}

/** A call of the pages' own clients (admin-api.ts): JSON in and out, the session's CSRF token. */
export function request<T>(path: string, method: Method = 'GET', json?: unknown): Promise<T> {
  return call<T>(path, json === undefined ? { method } : { method, json });
}
