/** The HTTP (6868) and, with a certificate, HTTPS (6869) listeners of the API. */
import type { Server } from 'node:http';
import type { TlsOptions } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { listen } from '../util/listen.js';
import { buildHttpApp } from './app.js';
import type { HttpContext } from './context.js';

/** A request, its headers included, must have arrived within this (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** How long requests still running when the listeners close may take to finish (ms). */
const CLOSE_GRACE_MS = 1000;

export interface HttpListeners {
  http: number;
  https: number | null;
  close(): Promise<void>;
}

export interface HttpListenOptions {
  host?: string;
  httpPort: number;
  httpsPort: number;
  tls?: TlsOptions;
  /** Time for a whole request, headers included (default 30 s). */
  requestTimeoutMs?: number;
}

/**
 * The request timeout also bounds the headers: node's own `headersTimeout` (60 s) would let a
 * client that drips its headers a byte at a time keep the connection twice as long, and node
 * checks both only every `connectionsCheckingInterval` (30 s by default, read when the server
 * starts listening).
 */
function applyTimeouts(server: Server, requestTimeoutMs: number): void {
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = requestTimeoutMs;
  // an option of createServer that node reads again when the server starts listening
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(100, Math.min(5000, Math.floor(requestTimeoutMs / 4)));
}

/** Listens like the MP listener: all interfaces (IPv6 and IPv4) unless `host` is given. */
async function listenApp(app: FastifyInstance, port: number, requestTimeoutMs: number, host?: string): Promise<number> {
  await app.ready();
  applyTimeouts(app.server, requestTimeoutMs);
  return listen(app.server, port, host);
}

/**
 * Closes the apps. Fastify waits for every connection to end (it cuts them itself only when it
 * listened itself): idle keep-alive connections, also those that finish their answer meanwhile
 * (a command answered 503 at shutdown), are closed at once; requests still running after a short
 * grace (a held 429, a slow upload) are cut.
 */
async function closeApps(apps: FastifyInstance[]): Promise<void> {
  const closed = Promise.all(apps.map((a) => a.close()));
  const idle = setInterval(() => apps.forEach((a) => a.server.closeIdleConnections()), 20);
  const cut = setTimeout(() => apps.forEach((a) => a.server.closeAllConnections()), CLOSE_GRACE_MS);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}

export async function startHttpListeners(ctx: HttpContext, opts: HttpListenOptions): Promise<HttpListeners> {
  const apps: FastifyInstance[] = [];
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  try {
    const plain = await buildHttpApp(ctx);
    apps.push(plain);
    const http = await listenApp(plain, opts.httpPort, requestTimeoutMs, opts.host);
    let https: number | null = null;
    if (opts.tls) {
      const secure = await buildHttpApp(ctx, opts.tls);
      apps.push(secure);
      https = await listenApp(secure, opts.httpsPort, requestTimeoutMs, opts.host);
    }
    return {
      http,
      https,
      close: () => closeApps(apps),
    };
  } catch (err) {
    await Promise.all(apps.map((a) => a.close().catch(() => undefined)));
    throw err;
  }
}
