/**
 * A real test server (test/support/server.ts) whose HTTP app is reached through fastify's
 * `inject()` as well as over its port, with the list of the routes it registered. The app is
 * caught when fastify creates it (its `fastify.initialization` diagnostics channel), before any
 * route exists, so that an `onRoute` hook sees them all. The rate limiter is off; owner `demo`
 * (password `demopass`) owns DEMO1 (car password NETPASS); owner `other` owns OTHER1. The
 * dashboard is a small built folder (index.html, assets/app.js) so that the static routes exist.
 * With `module`, demo also owns CAR1, an emulated module connected over the MP that sends its
 * records and answers commands.
 */
import { connect } from 'node:net';
import diagnostics from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ServerConfig } from '../../src/server/server.js';
import { Writable } from 'node:stream';
import { hashPassword } from '../../src/auth/password.js';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The cheap scrypt cost of test users (as test/support/server.ts). */
const TEST_COST = { N: 1024, r: 8, p: 1 };

export interface RouteEntry {
  method: string;
  url: string;
}

export interface Credentials {
  /** A session cookie (`name=value`) of demo, from GET /api/cookie. */
  cookie: string;
  /** A web session cookie of demo and its CSRF token, from POST /api/session. */
  web: { cookie: string; csrf: string };
  /** An API token of demo with every right. */
  token: string;
}

export interface InjectHarness extends Credentials {
  t: TestServer;
  /** The app of the HTTP port (no TLS). */
  app: FastifyInstance;
  /** Every route the app registered, one entry per method (HEAD routes fastify adds included). */
  routes: RouteEntry[];
  ownerId: number;
  /**
   * New credentials of demo (the old ones may have been ended or revoked); demo's password is
   * set back to `demopass` first when it was changed.
   */
  freshCredentials(): Promise<Credentials>;
  /** The log lines written since `mark` (an index into `t.logs`). */
  logsFrom(mark: number): string[];
  close(): Promise<void>;
}

/** Pino levels: error and fatal. */
export const isErrorLine = (line: string): boolean => /"level":(50|60)\b/.test(line);

/** Resolves with the inject answer, or rejects after `ms` (a request that is never answered). */
export async function injectWithin(app: FastifyInstance, opts: InjectOptions, ms: number): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${opts.method ?? 'GET'} ${String(opts.url)}`)), ms);
  });
  try {
    return await Promise.race([app.inject(opts), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function injectHarness(config: Partial<ServerConfig> = {}, opts: { module?: boolean } = {}): Promise<InjectHarness> {
  const webDir = mkdtempSync(join(tmpdir(), 'vts-web-'));
  mkdirSync(join(webDir, 'assets'));
  writeFileSync(join(webDir, 'index.html'), '<!doctype html><title>vts</title>\n');
  writeFileSync(join(webDir, 'assets', 'app.js'), 'console.log("vts");\n');

  const apps: FastifyInstance[] = [];
  const routes = new Map<FastifyInstance, RouteEntry[]>();
  const onInit = (message: unknown): void => {
    const app = (message as { fastify: FastifyInstance }).fastify;
    const list: RouteEntry[] = [];
    apps.push(app);
    routes.set(app, list);
    app.addHook('onRoute', (r) => {
      for (const method of Array.isArray(r.method) ? r.method : [r.method]) list.push({ method, url: r.url });
    });
  };
  diagnostics.subscribe('fastify.initialization', onInit);
  let t: TestServer;
  try {
    t = await startTestServer({ rateLimit: { burst: 0 }, web: { dir: webDir }, ...config });
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInit);
  }
  const app = apps[0];
  if (!app) throw new Error('the HTTP app was not created');

  const ownerId = await t.addUser('demo', 'demopass');
  await t.addVehicle('DEMO1', ownerId, 'NETPASS');
  const otherId = await t.addUser('other', 'otherpass');
  await t.addVehicle('OTHER1', otherId, 'OTHERPASS');
  let mod: EmulatedModule | undefined;
  if (opts.module) {
    await t.addVehicle('CAR1', ownerId, 'CARPASS');
    const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
    mod = new EmulatedModule({ id: 'CAR1', seed: 7, carPassword: 'CARPASS', adminPassword: 'admin', server: { host: '127.0.0.1', port: t.mpPort }, log: quiet });
    await mod.start();
    await eventually(() => (t.server.hub.counts('CAR1').net === 1 ? true : undefined), 'the module connected');
  }

  async function freshCredentials(): Promise<Credentials> {
    let login = await app!.inject({ url: '/api/cookie?username=demo&password=demopass' });
    if (login.statusCode === 401) {
      await t.server.store.setOwnerPassword('demo', await hashPassword('demopass', TEST_COST));
      login = await app!.inject({ url: '/api/cookie?username=demo&password=demopass' });
    }
    const cookie = String(login.headers['set-cookie'] ?? '').split(';', 1)[0] ?? '';
    if (login.statusCode !== 200 || !cookie) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
    const signIn = await app!.inject({
      method: 'POST',
      url: '/api/session',
      payload: 'username=demo&password=demopass',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (signIn.statusCode !== 200) throw new Error(`sign-in failed: ${signIn.statusCode} ${signIn.body}`);
    const web = {
      cookie: String(signIn.headers['set-cookie'] ?? '').split(';', 1)[0] ?? '',
      csrf: (JSON.parse(signIn.body) as { csrf: string }).csrf,
    };
    const created = await app!.inject({ method: 'POST', url: '/api/token?permit=*', headers: { cookie } });
    if (created.statusCode !== 201) throw new Error(`token failed: ${created.statusCode} ${created.body}`);
    return { cookie, web, token: (JSON.parse(created.body) as { token: string }).token };
  }

  return {
    t,
    app,
    routes: routes.get(app) ?? [],
    ownerId,
    ...(await freshCredentials()),
    freshCredentials,
    logsFrom: (mark) => t.logs.slice(mark),
    async close() {
      await mod?.stop();
      await t.close();
      rmSync(webDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends raw request bytes (latin1) over a real socket, so node's parser and fastify's router see
 * them as sent, and resolves to the answer: up to the end of its headers with `headersOnly`, else
 * up to the server's close. Rejects when nothing ends it within `timeoutMs` (a hang guard).
 */
export function rawExchange(port: number, request: string, opts: { headersOnly?: boolean; timeoutMs?: number } = {}): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: ${JSON.stringify(request.slice(0, 200))}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (opts.headersOnly && Buffer.concat(chunks).includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(request, 'latin1');
  });
}
