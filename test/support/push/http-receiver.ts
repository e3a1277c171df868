/**
 * A local HTTP server that records the requests it gets and answers as a test scripts it: the
 * receiver of webhook and ntfy deliveries, and the base of the Expo API stand-in
 * (expo-endpoint.ts). Listens on 127.0.0.1, port 0.
 *
 *   const rx = await HttpReceiver.start();
 *   rx.script('/hook', { status: 503, retryAfter: 7 }, { status: 200 });  // the next two answers to /hook
 *   … deliver to `${rx.url}/hook` …
 *   rx.requests[0].json(), rx.requests[0].headers['x-vts-signature']
 *   await rx.close();
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it came in. */
export interface RecordedRequest {
  method: string;
  /** The path with its query, as sent. */
  url: string;
  /** The path without the query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body as UTF-8. */
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = unknown>(): T;
}

/** How to answer one request. */
export interface ScriptedAnswer {
  /** Default 200. */
  status?: number;
  /** A string as is; anything else as JSON (with content-type application/json). Default: empty. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sets `Retry-After`. */
  retryAfter?: number | string;
  /** Never answer (until close). */
  hang?: boolean;
}

/** A local HTTP server that records requests and answers each as `respond` decides. */
export abstract class HttpEndpoint {
  readonly requests: RecordedRequest[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly server: Server;

  protected constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** The answer to a request, once it is recorded (its body read). */
  protected abstract respond(req: RecordedRequest): ScriptedAnswer;

  /** Starts listening on 127.0.0.1, a free port. */
  protected async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    return this;
  }

  /** `http://127.0.0.1:<port>` (no trailing slash). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the client went away before its request was complete
    }
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    const text = body.toString('utf8');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url,
      path: url.split('?')[0] ?? url,
      headers: req.headers,
      body,
      text,
      json: <T>() => JSON.parse(text) as T,
    };
    this.requests.push(recorded);
    let answer: ScriptedAnswer;
    try {
      answer = this.respond(recorded);
    } catch (err) {
      answer = { status: 500, body: `test endpoint failed: ${(err as Error).message}` };
    }
    for (const wake of [...this.waiters]) wake();
    if (answer.hang) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const headers: Record<string, string> = { ...answer.headers };
    let payload = '';
    if (typeof answer.body === 'string') payload = answer.body;
    else if (answer.body !== undefined) {
      payload = JSON.stringify(answer.body);
      headers['content-type'] ??= 'application/json';
    }
    if (answer.retryAfter !== undefined) headers['retry-after'] = String(answer.retryAfter);
    res.writeHead(answer.status ?? 200, headers);
    res.end(payload);
  }

  /** The requests to `path` (without query). */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves once `count` requests came in (all of them so far), or rejects after `timeoutMs`. */
  async waitForRequests(count: number, timeoutMs = 5000): Promise<RecordedRequest[]> {
    if (this.requests.length >= count) return this.requests;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.requests.length} of ${count} requests came in within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        if (this.requests.length < count) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.requests);
      };
      this.waiters.add(check);
    });
  }

  /** Stops listening and drops every connection, hanging answers included. */
  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Webhook and ntfy receiver: answers 200 (or the default set) unless a path has scripted answers,
 * which are used one per request, in order.
 */
export class HttpReceiver extends HttpEndpoint {
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private fallback: ScriptedAnswer = { status: 200 };

  static async start(): Promise<HttpReceiver> {
    return new HttpReceiver().listen();
  }

  protected override respond(req: RecordedRequest): ScriptedAnswer {
    const queue = this.scripts.get(req.path);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.scripts.delete(req.path);
    return next ?? this.fallback;
  }

  /** Queues answers for the next requests to `path` (without query), one each. */
  script(path: string, ...answers: ScriptedAnswer[]): this {
    const queue = this.scripts.get(path) ?? [];
    queue.push(...answers);
    this.scripts.set(path, queue);
    return this;
  }

  /** The answer to requests without a scripted one (default 200, empty body). */
  setDefault(answer: ScriptedAnswer): this {
    this.fallback = answer;
    return this;
  }
}
