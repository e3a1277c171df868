/**
 * Shared set-up for the HTTP API tests (test/http/*.test.ts): a real server per test (real sockets,
 * a real SQLite file) with owner `demo` (password `demopass`) of vehicles DEMO1 and TESTCAR (car
 * password NETPASS), and requests over real HTTP that return the status line's reason phrase, the
 * headers and the exact body bytes.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TestContext } from 'node:test';
import { MpClient } from '../../src/mp-client/mp-client.js';
import type { ServerConfig } from '../../src/server/server.js';
import { startTestServer, type TestServer } from '../support/server.js';

export interface HttpResponse {
  status: number;
  reason: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Use the HTTPS listener (self-signed certificates are accepted). */
  https?: boolean;
  /** Source address (any of 127.0.0.0/8 reaches the server on 127.0.0.1). */
  localAddress?: string;
}

export interface HttpHarness {
  t: TestServer;
  ownerId: number;
  httpPort: number;
  /** A request to the server's HTTP (or HTTPS) port. */
  request(path: string, opts?: RequestOptions): Promise<HttpResponse>;
  /** A request with `username=demo&password=demopass` appended to the query. */
  asDemo(path: string, opts?: RequestOptions): Promise<HttpResponse>;
  /** Logs in a scheme-0 car for the vehicle; it is closed when the test ends. */
  car(vehicleId?: string): Promise<MpClient>;
  /** Logs in a scheme-0 app or batch client; closed when the test ends. */
  client(type: 'A' | 'B', vehicleId?: string): Promise<MpClient>;
  /** `GET /api/cookie` as demo; returns the `name=value` pair to send back. */
  login(user?: string, password?: string): Promise<string>;
}

export const DEMO_AUTH = 'username=demo&password=demopass';

export function withQuery(path: string, query: string): string {
  return path + (path.includes('?') ? '&' : '?') + query;
}

export function send(port: number, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers: Record<string, string> = { ...opts.headers };
  if (body) headers['content-length'] = String(body.length);
  const make = opts.https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = make(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers,
        rejectUnauthorized: false,
        agent: false,
        localAddress: opts.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function httpHarness(ctx: TestContext, config: Partial<ServerConfig> = {}): Promise<HttpHarness> {
  const t = await startTestServer({ rateLimit: { burst: 0 }, ...config });
  const clients: MpClient[] = [];
  const ownerId = await t.addUser('demo', 'demopass');
  await t.addVehicle('DEMO1', ownerId, 'NETPASS');
  await t.addVehicle('TESTCAR', ownerId, 'NETPASS');
  const httpPort = t.server.ports.http!;
  ctx.after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });
  const connect = async (clientType: 'A' | 'B' | 'C', vehicleId: string) => {
    const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType, vehicleId, scheme: 0, password: 'NETPASS' });
    clients.push(c);
    return c;
  };
  const h: HttpHarness = {
    t,
    ownerId,
    httpPort,
    request: (path, opts = {}) => send(opts.https ? t.server.ports.https! : httpPort, path, opts),
    asDemo: (path, opts) => h.request(withQuery(path, DEMO_AUTH), opts),
    car: (vehicleId = 'TESTCAR') => connect('C', vehicleId),
    client: (type, vehicleId = 'TESTCAR') => connect(type, vehicleId),
    async login(user = 'demo', password = 'demopass') {
      const r = await h.request(`/api/cookie?username=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}`);
      const cookie = r.headers['set-cookie']?.[0];
      if (r.status !== 200 || !cookie) throw new Error(`login failed: ${r.status} ${r.body}`);
      return cookie;
    },
  };
  return h;
}

/** Replaces the time-dependent values (`m_msgtime_*`, `m_msgage_*`) so bodies compare exactly. */
export function withoutTimes(body: string): string {
  return body
    .replace(/"m_msgage_(\w)":-?\d+/g, '"m_msgage_$1":0')
    .replace(/"m_msgtime(_\w)?":"[^"]*"/g, '"m_msgtime$1":"T"');
}
