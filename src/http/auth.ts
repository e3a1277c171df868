/**
 * Who is calling (docs/protocol/http-api-v2.md §3.1): a session cookie naming a live session, else `username`
 * and `password` (the account password or an API token of that user) from the query string or,
 * for a POST, the form body. Every check goes through the login guard (src/auth/login-guard.ts):
 * an attempt over a limit is not checked and answers 429 with `Retry-After`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateUser, refusal, verifySecret, type Authenticated, type Refusal } from '../auth/authenticate.js';
import { userAccount } from '../auth/login-guard.js';
import { checkSecondFactor } from '../auth/totp.js';
import type { ApiSession } from '../hub/sessions/api-sessions.js';
import type { HttpContext } from './context.js';
import { clientAddress, loggedPath, type Params } from './params.js';
import { sendText } from './reply.js';

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
  // item by item between the semicolons, without splitting the header (every status poll asks)
  for (let from = 0; from <= header.length; ) {
    let to = header.indexOf(';', from);
    if (to < 0) to = header.length;
    const eq = header.indexOf('=', from);
    if (eq >= 0 && eq < to) {
      const name = header.slice(from, eq).trim();
      if (name !== '' && names.includes(name)) return header.slice(eq + 1, to).trim();
    }
    from = to + 1;
  }
  return undefined;
}

/** An attempt the login throttle refused without checking it. */
export interface Throttled {
  throttled: true;
  retryAfterSeconds: number;
}

export const isThrottled = (x: object | null | undefined): x is Throttled => x !== null && x !== undefined && 'throttled' in x;

/** The answer to a refused attempt: 429, `Retry-After`, a line that says when to try again. */
export function tooManyLogins(reply: FastifyReply, t: Throttled): FastifyReply {
  reply.header('retry-after', String(t.retryAfterSeconds));
  return sendText(reply, 429, `Too many failed logins: try again in ${t.retryAfterSeconds} s`);
}

export async function authenticate(ctx: HttpContext, req: FastifyRequest, params: Params): Promise<Principal | Throttled | null> {
  const cookie = sessionCookie(req.headers.cookie, ctx.cookieNames);
  if (cookie) {
    const s = await ctx.sessions.use(cookie);
    if (s) return { ownerId: s.ownerId, ownerName: s.ownerName, permit: s.permit, session: s, tokenHash: s.tokenHash };
  }
  const username = params.username;
  const password = params.password;
  if (!username || !password) return null;
  const principal = await checkCredentials(ctx, req, username, password);
  if (!principal || isThrottled(principal)) return principal;
  // a cookie-less client that connected to a vehicle keeps its registration alive by using the API
  ctx.sessions.anonymous({ id: principal.ownerId, name: principal.ownerName }, principal.permit, clientAddress(req), false);
  return principal;
}

/** A user name with the account password or a token, through the login guard. */
export async function checkCredentials(ctx: HttpContext, req: FastifyRequest, username: string, password: string): Promise<Principal | Throttled | null> {
  const address = clientAddress(req);
  const outcome = await ctx.guard.attempt(address, userAccount(username), async () => {
    const auth = await authenticateUser(ctx.store, ctx.credentials, username, password, ctx.hub.now());
    return auth && auth.permit.trim().toLowerCase() !== 'none' ? auth : null;
  });
  if (outcome.ok) {
    const auth = outcome.value;
    return { ownerId: auth.owner.id, ownerName: auth.owner.name, permit: auth.permit, tokenHash: auth.tokenHash };
  }
  if (outcome.throttled) {
    ctx.log.info({ address, user: username, path: loggedPath(req.url), limit: outcome.limit }, 'HTTP authentication refused: too many failed logins');
    return { throttled: true, retryAfterSeconds: outcome.retryAfterSeconds };
  }
  ctx.log.info({ address, user: username, path: loggedPath(req.url) }, 'HTTP authentication failed');
  return null;
}

/**
 * A web sign-in with a right secret that may not go on: the account's state refuses it (src/auth/authenticate.ts
 * `refusal`), or its second factor is missing or wrong.
 */
export interface Refused {
  refused: Refusal | 'VTS_ERR_TOTP_REQUIRED' | 'VTS_ERR_TOTP_INVALID';
}

export const isRefused = (x: object | null | undefined): x is Refused => x !== null && x !== undefined && 'refused' in x;

/**
 * The dashboard's check of a user name with the account password or a token, through the login
 * guard: the login, or why an account whose secret is right may not sign in (a right secret gives
 * its attempt back, so an owner told "not verified yet" is not throttled for it). An account with
 * TOTP needs `code` too (a TOTP code or a recovery code, src/auth/totp.ts): checked in the same
 * attempt, so a wrong code counts as a failed login; without one the answer asks for it.
 */
export async function checkWebCredentials(
  ctx: HttpContext,
  req: FastifyRequest,
  username: string,
  password: string,
  code = '',
): Promise<Authenticated | Throttled | Refused | null> {
  const address = clientAddress(req);
  let wrongCode = false;
  const outcome = await ctx.guard.attempt(address, userAccount(username), async () => {
    const auth = await verifySecret(ctx.store, ctx.credentials, username, password, ctx.hub.now());
    if (!auth || auth.permit.trim().toLowerCase() === 'none') return null;
    if (code !== '' && auth.owner.totpEnabled && refusal(auth, 'web') === null) {
      const used = await checkSecondFactor(ctx.store, ctx.factors.sealKey(), auth.owner.id, code, ctx.hub.now());
      if (used === null) {
        wrongCode = true;
        return null;
      }
      if (used === 'recovery') ctx.log.info({ user: auth.owner.name }, 'web sign-in with a recovery code');
    }
    return auth;
  });
  if (outcome.ok) {
    const why = refusal(outcome.value, 'web') ?? (outcome.value.owner.totpEnabled && code === '' ? 'VTS_ERR_TOTP_REQUIRED' : null);
    if (why) {
      ctx.log.info({ address, user: username, refused: why }, 'web sign-in refused');
      return { refused: why };
    }
    return outcome.value;
  }
  if (outcome.throttled) {
    ctx.log.info({ address, user: username, path: loggedPath(req.url), limit: outcome.limit }, 'web sign-in refused: too many failed logins');
    return { throttled: true, retryAfterSeconds: outcome.retryAfterSeconds };
  }
  ctx.log.info({ address, user: username, path: loggedPath(req.url) }, wrongCode ? 'web sign-in failed: wrong second factor' : 'web sign-in failed');
  return wrongCode ? { refused: 'VTS_ERR_TOTP_INVALID' } : null;
}
