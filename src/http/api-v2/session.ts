/** `GET /api/cookie` (log in) and `DELETE /api/cookie` (log out): docs/protocol/http-api-v2.md §4.1–§4.2. */
import { sessionCookie } from '../auth.js';
import { sendText } from '../reply.js';
import type { ApiRoute } from '../api-call.js';

export const login: ApiRoute = {
  rights: ['session'],
  async handler({ ctx, req, reply, principal }) {
    // a cookie naming a live session: that session ends first
    const old = sessionCookie(req.headers.cookie, ctx.cookieNames);
    if (old) await ctx.sessions.end(old);
    const s = await ctx.sessions.create({ id: principal.ownerId, name: principal.ownerName }, principal.permit, principal.tokenHash);
    // bare header, no attributes: some clients split the raw header (docs/protocol/http-api-v2.md §4.1)
    reply.header('Set-Cookie', `${ctx.cookieNames[0]}=${s.id}`);
    return sendText(reply, 200, 'Login ok');
  },
};

export const logout: ApiRoute = {
  rights: ['session'],
  async handler({ ctx, req, reply }) {
    const id = sessionCookie(req.headers.cookie, ctx.cookieNames);
    if (id) await ctx.sessions.end(id);
    return sendText(reply, 200, 'Logout ok');
  },
};
