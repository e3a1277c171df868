/**
 * A local Google for tests and benchmarks: an HTTP server that plays the OAuth2 token exchange of
 * a service account (`POST /token`: the RS256 assertion verified with the public half of the
 * fixture's key, its `iss`, `scope`, `aud`, `iat`/`exp`) and the FCM HTTP v1 API (`POST
 * /v1/projects/<project>/messages:send`: the bearer token must be one it issued), records both,
 * and answers 200 or what the test scripted.
 *
 *   const fcm = await startFcmEndpoint();
 *   const provider = createFcmProvider(fcm.settings, { log, now });
 *   fcm.script('tok-1', FCM_ANSWERS.unregistered);
 *   … fcm.requests, fcm.exchanges …
 *   await fcm.close();
 *
 * It writes a copy of the service-account JSON whose `token_uri` is its own (`serviceAccountFile`,
 * removed by close). A request it finds wrong is answered as Google would (401, 400
 * INVALID_ARGUMENT, `invalid_grant`) and recorded with `problem` set.
 */
import { createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FcmSettings } from '../../../src/push/providers/fcm.js';
import { verifyJwt, type DecodedJwt } from './apns-endpoint.js';

/** The fixture service account (project `vts-test`), its `token_uri` Google's. */
export const FCM_TEST_SERVICE_ACCOUNT = fileURLToPath(new URL('../../fixtures/push/fcm-service-account.json', import.meta.url));

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;

/**
 * What `messages:send` answers: a status (200 with a message name; else a Google error with
 * `errorStatus`, the FCM `errorCode` detail and `message`), or nothing at all.
 */
export type FcmAnswer = { status: number; errorStatus?: string; errorCode?: string; message?: string; retryAfter?: string | number } | 'hang';

/** What the token exchange answers: a token (valid `expiresIn` seconds), an OAuth error, or nothing. */
export type FcmTokenAnswer = { status: 200; expiresIn?: number } | { status: number; error: string; description?: string; retryAfter?: string | number } | 'hang';

/** Google's answers for the cases the provider tells apart. */
export const FCM_ANSWERS = {
  unregistered: { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' },
  invalidToken: {
    status: 400,
    errorStatus: 'INVALID_ARGUMENT',
    errorCode: 'INVALID_ARGUMENT',
    message: 'The registration token is not a valid FCM registration token',
  },
  senderIdMismatch: { status: 403, errorStatus: 'PERMISSION_DENIED', errorCode: 'SENDER_ID_MISMATCH', message: 'SenderId mismatch' },
  unauthenticated: {
    status: 401,
    errorStatus: 'UNAUTHENTICATED',
    message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  },
  invalidArgument: { status: 400, errorStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT', message: 'Invalid value at \'message.data[0].value\'' },
  unavailable: { status: 503, errorStatus: 'UNAVAILABLE', errorCode: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  quotaExceeded: { status: 429, errorStatus: 'RESOURCE_EXHAUSTED', errorCode: 'QUOTA_EXCEEDED', message: 'Quota exceeded.', retryAfter: 30 },
} satisfies Record<string, FcmAnswer>;

export interface FcmExchange {
  headers: IncomingHttpHeaders;
  /** The form fields. */
  form: Record<string, string>;
  /** The verified assertion's header and claims, when it verified. */
  decoded?: DecodedJwt;
  /** The access token issued ('' none). */
  issued: string;
  status: number;
  problem?: string;
}

export interface FcmRequest {
  /** The message's `token` ('' when there is none). */
  token: string;
  projectId: string;
  headers: IncomingHttpHeaders;
  /** The bearer token sent. */
  accessToken: string;
  body: string;
  /** The body as JSON (undefined when it is not). */
  payload: unknown;
  status: number;
  problem?: string;
}

export interface FcmEndpointOptions {
  /** The service account to accept (default the fixture). */
  serviceAccountFile?: string;
  /** Lifetime of issued access tokens in seconds (default 3599, as Google). */
  expiresIn?: number;
  /** Every answer comes this many ms late (benchmarks). */
  delayMs?: number;
}

export interface FcmEndpoint {
  /** `http://127.0.0.1:<port>`: the provider's `url`. */
  readonly url: string;
  /** Its token URL (`<url>/token`), the `token_uri` of `serviceAccountFile`. */
  readonly tokenUri: string;
  /** A copy of the service account whose `token_uri` is this endpoint. */
  readonly serviceAccountFile: string;
  readonly projectId: string;
  /** Provider settings that this endpoint accepts. */
  readonly settings: FcmSettings;
  /** Every `messages:send`, in order of arrival. */
  readonly requests: FcmRequest[];
  /** Every token exchange, in order of arrival. */
  readonly exchanges: FcmExchange[];
  /** The next sends to `token` get these answers, in order; then 200 again. */
  script(token: string, ...answers: FcmAnswer[]): void;
  /** The answer for sends to tokens without a script (default 200). */
  answerAll(answer: FcmAnswer): void;
  /** The next token exchanges get these answers, in order; then a token again. */
  scriptExchange(...answers: FcmTokenAnswer[]): void;
  /** The access tokens issued so far stop working (a send with one gets 401). */
  revokeTokens(): void;
  waitForRequests(count: number): Promise<void>;
  waitForExchanges(count: number): Promise<void>;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, retryAfter?: string | number): void {
  if (res.destroyed || res.writableEnded) return;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  res.writeHead(status, headers).end(JSON.stringify(body));
}

function googleError(a: Exclude<FcmAnswer, 'hang'>): unknown {
  const details = a.errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: a.errorCode }] : [];
  return { error: { code: a.status, message: a.message ?? '', status: a.errorStatus ?? '', details } };
}

export async function startFcmEndpoint(options: FcmEndpointOptions = {}): Promise<FcmEndpoint> {
  const source = JSON.parse(readFileSync(options.serviceAccountFile ?? FCM_TEST_SERVICE_ACCOUNT, 'utf8')) as Record<string, string>;
  const projectId = String(source.project_id);
  const clientEmail = String(source.client_email);
  const publicKey: KeyObject = createPublicKey(String(source.private_key));
  const expiresIn = options.expiresIn ?? 3599;

  const requests: FcmRequest[] = [];
  const exchanges: FcmExchange[] = [];
  const scripts = new Map<string, FcmAnswer[]>();
  const exchangeScript: FcmTokenAnswer[] = [];
  let fallback: FcmAnswer = { status: 200 };
  const valid = new Set<string>();
  let messages = 0;
  const waiters: { list: unknown[]; count: number; resolve: () => void }[] = [];
  let tokenUri = '';

  const notify = (): void => {
    for (const w of [...waiters]) {
      if (w.list.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const later = (fn: () => void): void => {
    if (options.delayMs) setTimeout(fn, options.delayMs);
    else fn();
  };

  function exchange(req: IncomingMessage, body: string, res: ServerResponse): void {
    const form = Object.fromEntries(new URLSearchParams(body));
    const ex: FcmExchange = { headers: req.headers, form, issued: '', status: 0 };
    const problem = ((): string | undefined => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return `content-type ${String(req.headers['content-type'])}`;
      if (form.grant_type !== GRANT) return `grant_type ${String(form.grant_type)}`;
      const verified = verifyJwt(form.assertion ?? '', publicKey, 'RS256');
      if (typeof verified === 'string') return `assertion: ${verified}`;
      ex.decoded = verified;
      const c = verified.claims;
      if (c.iss !== clientEmail) return `iss ${String(c.iss)}`;
      if (c.scope !== SCOPE) return `scope ${String(c.scope)}`;
      if (c.aud !== tokenUri) return `aud ${String(c.aud)}`;
      if (!Number.isInteger(c.iat) || !Number.isInteger(c.exp)) return 'iat/exp not integers';
      const lifetime = (c.exp as number) - (c.iat as number);
      if (lifetime <= 0 || lifetime > 3600) return `exp - iat = ${lifetime}`;
      if (source.private_key_id && verified.header.kid !== undefined && verified.header.kid !== source.private_key_id) return `kid ${String(verified.header.kid)}`;
      return undefined;
    })();
    exchanges.push(ex);
    notify();
    if (problem !== undefined) {
      ex.problem = problem;
      ex.status = 400;
      send(res, 400, { error: 'invalid_grant', error_description: problem });
      return;
    }
    const answer: FcmTokenAnswer = exchangeScript.shift() ?? { status: 200 };
    if (answer === 'hang') return;
    ex.status = answer.status;
    later(() => {
      if ('error' in answer) {
        send(res, answer.status, { error: answer.error, error_description: answer.description ?? '' }, answer.retryAfter);
        return;
      }
      const token = `ya29.test-${randomBytes(12).toString('hex')}`;
      valid.add(token);
      ex.issued = token;
      send(res, 200, { access_token: token, expires_in: answer.expiresIn ?? expiresIn, token_type: 'Bearer' });
    });
  }

  function message(req: IncomingMessage, path: string, body: string, res: ServerResponse): void {
    const project = decodeURIComponent(SEND_PATH.exec(path)?.[1] ?? '');
    const authorization = String(req.headers.authorization ?? '');
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      payload = undefined;
    }
    const msg = (payload as { message?: { token?: unknown; data?: unknown } } | undefined)?.message;
    const r: FcmRequest = {
      token: typeof msg?.token === 'string' ? msg.token : '',
      projectId: project,
      headers: req.headers,
      accessToken: /^Bearer /.test(authorization) ? authorization.slice(7) : '',
      body,
      payload,
      status: 0,
    };
    let answer: FcmAnswer;
    const problem = ((): { problem: string; answer: FcmAnswer } | undefined => {
      if (!valid.has(r.accessToken)) return { problem: `access token ${r.accessToken ? 'not issued or revoked' : 'missing'}`, answer: FCM_ANSWERS.unauthenticated };
      if (project !== projectId) {
        return { problem: `project ${project}`, answer: { status: 403, errorStatus: 'PERMISSION_DENIED', message: `Permission denied on resource project ${project}.` } };
      }
      const bad = (why: string) => ({ problem: why, answer: { status: 400, errorStatus: 'INVALID_ARGUMENT', message: why } });
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return bad(`content-type ${String(req.headers['content-type'])}`);
      if (msg === undefined || r.token === '') return bad('no message.token');
      const data = msg.data;
      if (data !== undefined) {
        if (data === null || typeof data !== 'object') return bad('message.data is not an object');
        let size = 0;
        for (const [k, v] of Object.entries(data)) {
          if (typeof v !== 'string') return bad(`message.data.${k} is not a string`);
          size += Buffer.byteLength(k) + Buffer.byteLength(v);
        }
        if (size > 4096) return bad(`message.data is ${size} bytes`);
      }
      return undefined;
    })();
    if (problem !== undefined) {
      r.problem = problem.problem;
      answer = problem.answer;
    } else {
      answer = scripts.get(r.token)?.shift() ?? fallback;
    }
    r.status = answer === 'hang' ? 0 : answer.status;
    requests.push(r);
    notify();
    if (answer === 'hang') return;
    const a = answer;
    later(() => {
      if (a.status === 200) {
        messages += 1;
        send(res, 200, { name: `projects/${projectId}/messages/0:${1_700_000_000_000 + messages}%${randomBytes(4).toString('hex')}` });
      } else {
        send(res, a.status, googleError(a), a.retryAfter);
      }
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/token') exchange(req, body, res);
      else if (req.method === 'POST' && SEND_PATH.test(path)) message(req, path, body, res);
      else send(res, 404, { error: { code: 404, message: `no ${req.method ?? ''} ${path}`, status: 'NOT_FOUND' } });
    });
    req.on('error', () => {});
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tokenUri = `${url}/token`;
  const dir = mkdtempSync(join(tmpdir(), 'vts-fcm-'));
  const serviceAccountFile = join(dir, 'service-account.json');
  writeFileSync(serviceAccountFile, JSON.stringify({ ...source, token_uri: tokenUri }, null, 2), { mode: 0o600 });

  return {
    url,
    tokenUri,
    serviceAccountFile,
    projectId,
    settings: { serviceAccountFile, url },
    requests,
    exchanges,
    script(token, ...answers) {
      scripts.set(token, [...(scripts.get(token) ?? []), ...answers]);
    },
    answerAll(answer) {
      fallback = answer;
    },
    scriptExchange(...answers) {
      exchangeScript.push(...answers);
    },
    revokeTokens() {
      valid.clear();
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ list: requests, count, resolve }));
    },
    waitForExchanges(count) {
      if (exchanges.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ list: exchanges, count, resolve }));
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
