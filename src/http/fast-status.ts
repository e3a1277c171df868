/**
 * `GET /api/status/<id>` with a session cookie, answered at node's `request` event before fastify:
 * the poll every app repeats all day, and fastify's request path alone (routing, hooks, its reply)
 * costs more than the rest of the answer. Only the plainest form of the request is taken here, and
 * only when the socket's peer is the client (no trusted proxies) and the app is not closing; the
 * metrics and the access log see it as they see every answer (`answered`). The answer is written
 * with the very bytes fastify would have sent (status line, headers in their order, body:
 * test/http/fast-status.test.ts compares them). Everything else
 * — another method or path, a query, any percent-encoding, a cookie that names no live session, a
 * vehicle of someone else, a paranoid vehicle, an error — goes on to fastify as it came, and is
 * answered there as before.
 *
 * When the session, the vehicle and its messages are all in memory (the session store's and the
 * store's `…AtOnce`/`peek…` reads), the answer is written inside the `request` event itself, as a
 * bare node:http server writes it: no promise, no later microtask. Otherwise the same reads are
 * awaited, and the answer written then.
 *
 * The rate limiter counts the request here, as the onRequest hook of app.ts would; a request
 * handed on to fastify afterwards carries the limiter's verdict (`limiterVerdicts`), so that it
 * is counted once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { normaliseAddress } from '../core/address-key.js';
import { PARANOID } from '../core/records/fields.js';
import { hasRight } from '../core/auth/rights.js';
import { API_ROUTES } from './api-hall.js';
import { isRefusal, ownersVehicle, ownersVehicleAtOnce } from './api-call.js';
import { sessionCookie } from './auth.js';
import type { HttpContext } from './context.js';
import { httpDate } from './reply.js';
import { renderStatus } from './api-v2/records.js';
import type { Rendered } from './api-v2/record-memo.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The limiter's verdict on a request counted before fastify (true: within its quota). */
export const limiterVerdicts = new WeakMap<IncomingMessage, boolean>();

/** The path taken here: a vehicle id of plain characters, no query, nothing encoded. */
const STATUS_PATH = /^\/api\/status\/([A-Za-z0-9_-]{1,32})$/;

/**
 * What app.ts does with every answered request (the metrics, the access log): the method, the URL,
 * the status, the time taken (ms) and the client's address (asked only when it is logged).
 */
export type Answered = (method: string, url: string, statusCode: number, ms: number, client: () => string) => void;

/**
 * The head of the answer: the headers of records.ts's reply and app.ts's onSend hook, in fastify's
 * order, as a flat list (node writes it as it is, without walking an object's keys). One list,
 * its date and length filled in before each `writeHead`, which has read it when it returns.
 */
const HEAD = [
  'content-type', 'application/json',
  'date', '',
  'expires', '',
  'cache-control', 'max-age=0',
  'access-control-allow-origin', '*',
  'content-length', '',
];
const [DATE, EXPIRES, LENGTH] = [3, 5, 11];

/**
 * The `request` listener: answers the requests it can, hands every other one to `next`
 * (fastify's own listener). `closing()` is true once the app has begun to close (fastify answers
 * 503 then).
 */
export function fastStatus(ctx: HttpContext, closing: () => boolean, next: Handler, answered?: Answered): Handler {
  const rights = API_ROUTES.get('GET:status')?.rights;

  /** Writes the 200 (unless the answer cannot be given here); true when written. */
  const write = (req: IncomingMessage, res: ServerResponse, rendered: Rendered, start: number): boolean => {
    if (rendered === PARANOID || closing() || res.headersSent) return false;
    if (answered) {
      const url = req.url ?? '';
      // as fastify's onResponse: once the answer has been handed to the socket
      res.once('finish', () => answered('GET', url, 200, performance.now() - start, () => normaliseAddress(req.socket.remoteAddress)));
    }
    const date = httpDate();
    HEAD[DATE] = date;
    HEAD[EXPIRES] = date;
    HEAD[LENGTH] = String(rendered.length);
    res.writeHead(200, 'Ok', HEAD);
    res.end(rendered);
    return true;
  };

  /** The answer from memory, written at once; false when something is not in memory (or not this caller's). */
  const answerAtOnce = (req: IncomingMessage, res: ServerResponse, id: string, cookie: string, start: number): boolean => {
    const s = ctx.sessions.useAtOnce(cookie);
    if (!s || (rights && !hasRight(s.permit, ...rights))) return false;
    const vehicle = ownersVehicleAtOnce(ctx, s.ownerId, id);
    const rendered = vehicle && renderStatus.atOnce(ctx, vehicle.id);
    return rendered !== undefined && write(req, res, rendered, start);
  };

  /** The same answer through the awaited reads; false when it is fastify's to give. */
  const answer = async (req: IncomingMessage, res: ServerResponse, id: string, cookie: string, start: number): Promise<boolean> => {
    const s = await ctx.sessions.use(cookie);
    if (!s || (rights && !hasRight(s.permit, ...rights))) return false;
    const vehicle = await ownersVehicle(ctx, s.ownerId, id, 'view');
    if (!vehicle || isRefusal(vehicle)) return false;
    return write(req, res, await renderStatus(ctx, vehicle.id), start);
  };

  return (req, res) => {
    const start = answered ? performance.now() : 0;
    const m = req.method === 'GET' && !closing() ? STATUS_PATH.exec(req.url ?? '') : null;
    const cookie = m ? sessionCookie(req.headers.cookie, ctx.cookieNames) : undefined;
    const address = req.socket.remoteAddress;
    if (!m || !cookie || address === undefined) return next(req, res);
    const allowed = ctx.rateLimiter.hit(normaliseAddress(address), ctx.hub.seconds());
    if (!allowed) {
      limiterVerdicts.set(req, false);
      return next(req, res);
    }
    const id = m[1]!;
    try {
      if (answerAtOnce(req, res, id, cookie, start)) return;
    } catch {
      // the awaited reads below meet the same failure, and hand the request on
    }
    const handOn = (): void => {
      if (res.headersSent) return; // answered here (an error after the answer has nobody to tell)
      limiterVerdicts.set(req, true);
      next(req, res);
    };
    answer(req, res, id, cookie, start).then((done) => {
      if (!done) handOn();
    }, handOn);
  };
}
