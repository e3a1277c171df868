/**
 * The HTTP/1.1 client of the busy providers (FCM, Expo): a POST on kept-alive connections
 * (node:http and node:https agents), its answer read up to a bound. Node's fetch costs about three
 * times the CPU per request (0.5 ms against 0.15 ms measured), which a burst of alerts would take
 * from the cars' event loop. Trusts what fetch trusts: the system's CAs and NODE_EXTRA_CA_CERTS.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface HttpAnswer {
  status: number;
  /** A header of the answer (the first, if it came several times). */
  header(name: string): string | undefined;
  /** The body as text, cut at the poster's bound. */
  body: string;
}

export interface HttpPoster {
  /**
   * POSTs `body`; rejects with the connection's error (its `code`: ECONNREFUSED…) or, once
   * `signal` aborts, with an AbortError. Redirects are not followed (a 3xx is an answer).
   */
  post(url: string, headers: Readonly<Record<string, string>>, body: string, signal: AbortSignal): Promise<HttpAnswer>;
  /** Closes the idle connections. */
  close(): void;
}

/**
 * `maxAnswer`: the most of an answer's body kept (bytes); the rest is read and dropped. `lookup`:
 * how the connections resolve host names (the users' targets: only allowed addresses).
 */
export function httpPoster(maxAnswer: number, opts: { lookup?: LookupFunction } = {}): HttpPoster {
  const lookup = opts.lookup ? { lookup: opts.lookup } : {};
  const agents = { http: new http.Agent({ keepAlive: true, ...lookup }), https: new https.Agent({ keepAlive: true, ...lookup }) };
  return {
    post(url, headers, body, signal) {
      return new Promise<HttpAnswer>((resolve, reject) => {
        const u = new URL(url);
        const secure = u.protocol === 'https:';
        const options: http.RequestOptions = {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          signal,
        };
        const req = (secure ? https : http).request(u, options, (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept >= maxAnswer) return;
            chunks.push(chunk);
            kept += chunk.length;
          });
          res.once('error', reject);
          res.once('aborted', () => reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
          res.once('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              header: (name) => {
                const v = res.headers[name.toLowerCase()];
                return Array.isArray(v) ? v[0] : v;
              },
              body: text.length > maxAnswer ? text.slice(0, maxAnswer) : text,
            });
          });
        });
        req.once('error', reject);
        req.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
