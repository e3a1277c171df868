/** The HTTP (6868) and, with a certificate, HTTPS (6869) listeners of the API. */
import type { TlsOptions } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { listen } from '../listen.js';
import { buildHttpApp } from './app.js';
import type { HttpContext } from './context.js';

export interface HttpListeners {
  http: number;
  https: number | null;
  close(): Promise<void>;
}

/** Listens like the MP listener: all interfaces (IPv6 and IPv4) unless `host` is given. */
async function listenApp(app: FastifyInstance, port: number, host?: string): Promise<number> {
  await app.ready();
  return listen(app.server, port, host);
}

export async function startHttpListeners(
  ctx: HttpContext,
  opts: { host?: string; httpPort: number; httpsPort: number; tls?: TlsOptions },
): Promise<HttpListeners> {
  const apps: FastifyInstance[] = [];
  try {
    const plain = await buildHttpApp(ctx);
    apps.push(plain);
    const http = await listenApp(plain, opts.httpPort, opts.host);
    let https: number | null = null;
    if (opts.tls) {
      const secure = await buildHttpApp(ctx, opts.tls);
      apps.push(secure);
      https = await listenApp(secure, opts.httpsPort, opts.host);
    }
    return {
      http,
      https,
      async close() {
        await Promise.all(apps.map((a) => a.close()));
      },
    };
  } catch (err) {
    await Promise.all(apps.map((a) => a.close().catch(() => undefined)));
    throw err;
  }
}
