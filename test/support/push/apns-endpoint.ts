/**
 * A local APNs for tests and benchmarks: an HTTP/2 TLS server (the suite's certificate for
 * localhost / 127.0.0.1, test/fixtures/tls) that checks each request as Apple does (method, path
 * `/3/device/<token>`, `apns-topic`, `apns-push-type`, `apns-priority`, the payload, and the ES256
 * provider token verified with the public half of test/fixtures/push/apns-key.p8, its `kid` and
 * `iss`), records it, and answers 200 or what the test scripted for the token.
 *
 *   const apns = await startApnsEndpoint();
 *   const provider = createApnsProvider(apns.settings, { log, now, ca: apns.ca });
 *   apns.script('aa11', { status: 410, reason: 'Unregistered' });
 *   … apns.requests …
 *   await apns.close();
 *
 * A request the endpoint finds wrong is answered as Apple would (403 InvalidProviderToken, 400
 * MissingTopic, …) and recorded with `problem` set: tests assert `problem` is undefined.
 */
import { createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureServer, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ApnsSettings } from '../../../src/push/providers/apns.js';

const fixture = (path: string): string => fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url));

/** The test key (P-256, PKCS#8) and the ids the endpoint expects by default. */
export const APNS_TEST_KEY_FILE = fixture('push/apns-key.p8');
export const APNS_TEST_KEY_ID = 'VTSTEST001';
export const APNS_TEST_TEAM_ID = 'VTSTEAM001';
export const APNS_TEST_TOPIC = 'com.openvehicles.ovms';

/** A JWT whose signature checked out: its decoded header and claims. */
export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

/**
 * Checks a compact JWS (`alg` ES256 with the raw r‖s signature, or RS256) against `publicKey`;
 * the decoded parts, or a string saying what is wrong.
 */
export function verifyJwt(jwt: string, publicKey: KeyObject, alg: 'ES256' | 'RS256'): DecodedJwt | string {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'not a compact JWS';
  const [h = '', c = '', sig = ''] = parts;
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'header or claims are not base64url JSON';
  }
  if (header.alg !== alg) return `alg ${String(header.alg)}, not ${alg}`;
  const data = Buffer.from(`${h}.${c}`);
  const signature = Buffer.from(sig, 'base64url');
  const ok = alg === 'ES256' ? verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature) : verify('sha256', data, publicKey, signature);
  return ok ? { header, claims } : 'bad signature';
}

/** What the endpoint answers: a status (200 with an apns-id; else Apple's `{"reason"}`), or no answer at all. */
export type ApnsAnswer = { status: number; reason?: string; retryAfter?: string | number } | 'hang';

export interface ApnsRequest {
  /** The device token of the path (decoded). */
  token: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The provider token (the JWT text), '' when none was sent. */
  jwt: string;
  /** The verified JWT's header and claims, when it verified. */
  decoded?: DecodedJwt;
  body: string;
  /** The body as JSON (undefined when it is not). */
  payload: unknown;
  /** What the endpoint answered (0: nothing, `hang`). */
  status: number;
  /** What was wrong with the request; undefined for a request Apple would take. */
  problem?: string;
}

export interface ApnsEndpointOptions {
  keyFile?: string;
  keyId?: string;
  teamId?: string;
  topic?: string;
  /** Every answer comes this many ms late (benchmarks). */
  delayMs?: number;
}

export interface ApnsEndpoint {
  /** `https://127.0.0.1:<port>`: the provider's `url`. */
  readonly url: string;
  /** The endpoint's certificate (PEM), for the provider's `deps.ca`. */
  readonly ca: string;
  /** Provider settings that this endpoint accepts. */
  readonly settings: ApnsSettings;
  /** Every request, in order of arrival. */
  readonly requests: ApnsRequest[];
  /** HTTP/2 sessions (connections) accepted so far. */
  readonly connections: number;
  /** The next requests to `token` get these answers, in order; then 200 again. */
  script(token: string, ...answers: ApnsAnswer[]): void;
  /** The answer for requests to tokens without a script (default 200). */
  answerAll(answer: ApnsAnswer): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Closes every open connection (the provider must reconnect). */
  disconnect(): void;
  close(): Promise<void>;
}

const TOKEN_PATH = /^\/3\/device\/([^/?]+)$/;

export async function startApnsEndpoint(options: ApnsEndpointOptions = {}): Promise<ApnsEndpoint> {
  const keyFile = options.keyFile ?? APNS_TEST_KEY_FILE;
  const keyId = options.keyId ?? APNS_TEST_KEY_ID;
  const teamId = options.teamId ?? APNS_TEST_TEAM_ID;
  const topic = options.topic ?? APNS_TEST_TOPIC;
  const publicKey = createPublicKey(readFileSync(keyFile, 'utf8'));
  const cert = readFileSync(fixture('tls/cert.pem'), 'utf8');
  const key = readFileSync(fixture('tls/key.pem'), 'utf8');

  const requests: ApnsRequest[] = [];
  const scripts = new Map<string, ApnsAnswer[]>();
  let fallback: ApnsAnswer = { status: 200 };
  const sessions = new Set<ServerHttp2Session>();
  let connections = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  /**
   * Provider tokens whose signature verified: a client sends the same token for many requests
   * (up to an hour), and the signature check is most of this endpoint's CPU, which the push
   * benchmark counts against the server's machine. The checks of the header and claims still
   * run on every request.
   */
  const verifiedTokens = new Map<string, DecodedJwt>();

  const server = createSecureServer({ key, cert });
  server.on('session', (session: ServerHttp2Session) => {
    connections += 1;
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });

  /** What Apple would answer for a request that is wrong, with why; undefined when it is right. */
  function check(req: ApnsRequest): { status: number; reason: string; problem: string } | undefined {
    const wrong = (status: number, reason: string, problem: string) => ({ status, reason, problem });
    if (req.method !== 'POST') return wrong(405, 'MethodNotAllowed', `method ${req.method}`);
    if (!TOKEN_PATH.test(req.path)) return wrong(404, 'BadPath', `path ${req.path}`);
    if (req.jwt === '') return wrong(403, 'MissingProviderToken', 'no bearer token');
    let verified = verifiedTokens.get(req.jwt);
    if (verified === undefined) {
      const checked = verifyJwt(req.jwt, publicKey, 'ES256');
      if (typeof checked === 'string') return wrong(403, 'InvalidProviderToken', `JWT: ${checked}`);
      if (verifiedTokens.size >= 16) verifiedTokens.clear();
      verifiedTokens.set(req.jwt, checked);
      verified = checked;
    }
    req.decoded = verified;
    const fields = Object.keys(verified.header).sort().join(',');
    if (fields !== 'alg,kid') return wrong(403, 'InvalidProviderToken', `JWT header fields ${fields}, not alg,kid`);
    if (verified.header.kid !== keyId) return wrong(403, 'InvalidProviderToken', `JWT kid ${String(verified.header.kid)}`);
    if (verified.claims.iss !== teamId) return wrong(403, 'InvalidProviderToken', `JWT iss ${String(verified.claims.iss)}`);
    if (!Number.isInteger(verified.claims.iat)) return wrong(403, 'InvalidProviderToken', `JWT iat ${String(verified.claims.iat)}`);
    if (req.headers['apns-topic'] === undefined) return wrong(400, 'MissingTopic', 'no apns-topic');
    if (req.headers['apns-topic'] !== topic) return wrong(400, 'TopicDisallowed', `apns-topic ${String(req.headers['apns-topic'])}`);
    if (req.headers['apns-push-type'] !== 'alert') return wrong(400, 'InvalidPushType', `apns-push-type ${String(req.headers['apns-push-type'])}`);
    const priority = req.headers['apns-priority'];
    if (priority !== undefined && priority !== '10' && priority !== '5') return wrong(400, 'BadPriority', `apns-priority ${String(priority)}`);
    if (req.body === '') return wrong(400, 'PayloadEmpty', 'empty body');
    if (Buffer.byteLength(req.body) > 4096) return wrong(413, 'PayloadTooLarge', `payload of ${Buffer.byteLength(req.body)} bytes`);
    const aps = (req.payload as { aps?: unknown } | undefined)?.aps;
    if (aps === null || typeof aps !== 'object') return wrong(400, 'BadPayload', 'the body is no JSON with "aps"');
    return undefined;
  }

  function respond(stream: ServerHttp2Stream, answer: { status: number; reason?: string; retryAfter?: string | number }): void {
    if (stream.destroyed || stream.closed) return;
    const headers: Record<string, string | number> = { ':status': answer.status, 'apns-id': randomUUID().toUpperCase() };
    if (answer.retryAfter !== undefined) headers['retry-after'] = String(answer.retryAfter);
    if (answer.status === 200) {
      stream.respond(headers, { endStream: true });
      return;
    }
    const body = JSON.stringify(answer.status === 410 ? { reason: answer.reason ?? 'Unregistered', timestamp: Date.now() } : { reason: answer.reason ?? 'InternalServerError' });
    stream.respond({ ...headers, 'content-type': 'application/json' });
    stream.end(body);
  }

  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => {});
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const path = String(headers[':path'] ?? '');
      const match = TOKEN_PATH.exec(path);
      const authorization = String(headers.authorization ?? '');
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        payload = undefined;
      }
      const req: ApnsRequest = {
        token: match?.[1] === undefined ? '' : decodeURIComponent(match[1]),
        method: String(headers[':method'] ?? ''),
        path,
        headers,
        jwt: /^bearer /i.test(authorization) ? authorization.slice(7) : '',
        body,
        payload,
        status: 0,
      };
      const wrong = check(req);
      let answer: ApnsAnswer;
      if (wrong !== undefined) {
        req.problem = wrong.problem;
        answer = { status: wrong.status, reason: wrong.reason };
      } else {
        answer = scripts.get(req.token)?.shift() ?? fallback;
      }
      req.status = answer === 'hang' ? 0 : answer.status;
      requests.push(req);
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      if (answer === 'hang') return;
      const a = answer;
      if (options.delayMs) setTimeout(() => respond(stream, a), options.delayMs);
      else respond(stream, a);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    ca: cert,
    settings: { keyFile, keyId, teamId, topic, url },
    requests,
    get connections() {
      return connections;
    },
    script(token, ...answers) {
      scripts.set(token, [...(scripts.get(token) ?? []), ...answers]);
    },
    answerAll(answer) {
      fallback = answer;
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    disconnect() {
      for (const session of sessions) session.destroy();
    },
    close() {
      for (const session of sessions) session.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
