/**
 * Who is calling (http-api-v2.md §3.1): a session cookie naming a live session, else `username`
 * and `password` (the account password or an API token of that user) from the query string or,
 * for a POST, the form body. Failed attempts are throttled per address and per user name.
 */
import type { FastifyRequest } from 'fastify';
import { authenticateUser } from '../auth/authenticate.js';
import type { ApiSession } from '../hub/api-sessions.js';
import type { HttpContext } from './context.js';
import { clientAddress, type Params } from './params.js';

export interface Principal {
  ownerId: number;
  ownerName: string;
  permit: string;
  /** The cookie session the request came with, if any. */
  session?: ApiSession;
  /** The token used, when the request authenticated with one (its hash). */
  tokenHash?: string;
}

/** The session id from a `Cookie` header: the first item named by one of `names`. */
export function sessionCookie(header: string | undefined, names: readonly string[]): string | undefined {
  if (!header) return undefined;
  for (const item of header.split(/;\s*/)) {
    const eq = item.indexOf('=');
    if (eq > 0 && names.includes(item.slice(0, eq).trim())) return item.slice(eq + 1).trim();
  }
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export async function authenticate(ctx: HttpContext, req: FastifyRequest, params: Params): Promise<Principal | null> {
  const cookie = sessionCookie(req.headers.cookie, ctx.cookieNames);
  if (cookie) {
    const s = ctx.sessions.use(cookie);
    if (s) return { ownerId: s.ownerId, ownerName: s.ownerName, permit: s.permit, session: s, tokenHash: s.tokenHash };
  }
  const username = params.username;
  const password = params.password;
  if (!username || !password) return null;
  const principal = await checkCredentials(ctx, req, username, password);
  if (!principal) return null;
  // a cookie-less client that connected to a vehicle keeps its registration alive by using the API
  ctx.sessions.anonymous({ id: principal.ownerId, name: principal.ownerName }, principal.permit, clientAddress(req), false);
  return principal;
}

/** A user name with the account password or a token, throttled per address and per user name. */
export async function checkCredentials(ctx: HttpContext, req: FastifyRequest, username: string, password: string): Promise<Principal | null> {
  const address = clientAddress(req);
  const nowS = ctx.hub.seconds();
  const userKey = username.toLowerCase();
  const decisions = [ctx.addressThrottle.check(address, nowS), ctx.userThrottle.check(userKey, nowS)];
  if (decisions[0]!.action === 'refuse') return null;
  const delay = Math.max(0, ...decisions.map((d) => (d.action === 'delay' ? d.seconds : 0)));
  if (delay > 0) await sleep(delay * 1000);

  const auth = await authenticateUser(ctx.store, ctx.credentials, username, password, ctx.hub.now());
  if (!auth || auth.permit.trim().toLowerCase() === 'none') {
    ctx.addressThrottle.recordFailure(address, ctx.hub.seconds());
    ctx.userThrottle.recordFailure(userKey, ctx.hub.seconds());
    ctx.log.info({ address, user: username, path: req.url.split('?')[0] }, 'HTTP authentication failed');
    return null;
  }
  return { ownerId: auth.owner.id, ownerName: auth.owner.name, permit: auth.permit, tokenHash: auth.tokenHash };
}
