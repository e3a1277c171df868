/**
 * Browser sessions (docs/web-api.md "Sessions for browsers"): `POST /api/session` signs in with a
 * user name and the account password or a token (never with a cookie it happens to carry), opens a
 * session of the same kind as `GET /api/cookie`, with a CSRF token, and sets the cookie with
 * `HttpOnly; SameSite=Strict` (and `Secure` over HTTPS). `GET` says who is signed in; `DELETE`
 * signs out. A web session ends after `--web-session-timeout` without use (API sessions after
 * `--session-timeout`).
 */
import { hasRight } from '../../core/auth/rights.js';
import { ERRORS } from '../../errors.js';
import { checkWebCredentials, isRefused, isThrottled, sessionCookie } from '../auth.js';
import { clientAddress } from '../params.js';
import { sendError, sendJson, status } from '../reply.js';
import type { ApiCall, ApiRoute } from '../api-call.js';

/** A secret check the login throttle refused: 429 with `Retry-After` (src/http/auth.ts for the text calls). */
export function loginThrottled(call: ApiCall, retryAfterSeconds: number) {
  call.reply.header('retry-after', String(retryAfterSeconds));
  return sendError(call.reply, { code: 'VTS_ERR_LOGIN_THROTTLED', message: `too many failed logins: try again in ${retryAfterSeconds} s` });
}

/** A vehicle that is not the caller's: unknown ones and other owners' answer alike (no hint which). */
export const notYours = (call: ApiCall) => sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_VEHICLE', message: 'no such vehicle among yours' });

/**
 * `timeout`: the idle seconds after which the web session ends (`--web-session-timeout`); `admin`:
 * the session may use the operator's page (the admin account, signed in with its password or a
 * passkey, not a token).
 */
const sessionBody = (call: ApiCall, user: string, csrf: string, admin: boolean) =>
  sendJson(call.reply, 200, { admin, csrf, timeout: Math.round(call.ctx.sessions.timeouts.webMs / 1000), user });

export const signIn: ApiRoute = {
  public: true,
  async handler(call) {
    const { ctx, req, params } = call;
    const username = params.username ?? '';
    const password = params.password ?? '';
    const auth = username && password ? await checkWebCredentials(ctx, req, username, password, params.code ?? '') : null;
    if (isThrottled(auth)) return loginThrottled(call, auth.retryAfterSeconds);
    const client = clientAddress(req);
    if (isRefused(auth)) {
      void ctx.audit.record({ action: 'session.signin_failed', actor: '', via: 'web', target: username, detail: { client, reason: auth.refused } });
      return sendError(call.reply, { code: auth.refused, message: ERRORS[auth.refused] });
    }
    if (!auth || !hasRight(auth.permit, 'session')) {
      // not awaited: the answer takes no longer for a name that exists (the login throttle bounds how many)
      if (username && password) void ctx.audit.record({ action: 'session.signin_failed', actor: '', via: 'web', target: username, detail: { client, reason: auth ? 'VTS_ERR_FORBIDDEN' : 'VTS_ERR_AUTH' } });
      return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'wrong user name or password' });
    }
    return startWebSession(call, auth.owner, auth.permit, auth.tokenHash, auth.via);
  },
};

/**
 * Opens a web session for a signed-in owner (the password sign-in here, the passkey one in
 * passkeys.ts): the old session of the request's cookie ends, the cookie is set, the body says who.
 */
export async function startWebSession(call: ApiCall, owner: { id: number; name: string; admin?: boolean }, permit: string, tokenHash: string | undefined, via: string) {
  const { ctx, req, reply } = call;
  const old = sessionCookie(req.headers.cookie, ctx.cookieNames);
  if (old) await ctx.sessions.end(old);
  const s = await ctx.sessions.create({ id: owner.id, name: owner.name }, permit, tokenHash, true);
  const secure = req.protocol === 'https' ? '; Secure' : '';
  reply.header('Set-Cookie', `${ctx.cookieNames[0]}=${s.id}; Path=/; HttpOnly; SameSite=Strict${secure}`);
  ctx.log.info({ user: owner.name, via }, 'web sign-in');
  await ctx.audit.record({ action: 'session.signin', actor: owner.name, via: 'web', target: owner.name, detail: { client: clientAddress(req), with: via } });
  return sessionBody(call, owner.name, s.csrf ?? '', owner.admin === true && tokenHash === undefined);
}

/**
 * Only the cookie of a web session answers (the dashboard asks at start whether it is signed in):
 * anything else, no login included, is the documented JSON 401, not the dispatcher's text line.
 */
export const whoAmI: ApiRoute = {
  jsonUnauthorized: true,
  async handler(call) {
    const s = call.principal.session;
    if (!s?.csrf) return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'not signed in' });
    const owner = s.tokenHash === undefined ? await call.ctx.store.getOwnerById(s.ownerId) : undefined;
    return sessionBody(call, s.ownerName, s.csrf, owner?.admin === true);
  },
};

export const signOut: ApiRoute = {
  async handler(call) {
    const s = call.principal.session;
    if (s) await call.ctx.sessions.end(s.id);
    const secure = call.req.protocol === 'https' ? '; Secure' : '';
    call.reply.header('Set-Cookie', `${call.ctx.cookieNames[0]}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`);
    return status(call.reply, 204).send();
  },
};
