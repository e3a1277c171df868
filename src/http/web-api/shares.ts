/**
 * Sharing a vehicle (docs/accounts.md "Sharing", docs/web-api.md "Sharing"): `POST
 * /api/shares/<VEHICLEID>` `{"user","access"}` shares it with another user (or changes the
 * access), `GET` lists its shares, `DELETE /api/shares/<VEHICLEID>/<user>` revokes one. Only the
 * owner: a user the vehicle is shared with gets 403 VTS_ERR_FORBIDDEN (it cannot share on nor see
 * the other shares). A changed or revoked share cuts the user's live connections of the vehicle at
 * once, on every node (src/hub/access/access-revocations.ts).
 */
import { USER_NAME } from '../../core/auth/identifier-rules.js';
import { SHARE_ACCESS, type Share, type ShareAccess } from '../../store/shares-store.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { sendError, sendJson, status } from '../reply.js';
import { owned, record, VEHICLE_RIGHTS } from './own-vehicles.js';
import { badInput, notFound } from './sessions-common.js';

/** The most users one vehicle may be shared with. */
export const MAX_SHARES = 50;

const shareJson = (s: Share) => ({ access: s.access, created: s.created, user: s.userName });

/** No such user: one answer whether the name is unknown or not a user the caller can share with. */
const noSuchUser = (call: ApiCall) => sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_USER', message: 'no such user' });

export const listShares: ApiRoute = {
  async handler(call) {
    if (call.args.length !== 1) return notFound(call, 'GET /api/shares/<vehicle>');
    const v = await owned(call);
    if (!v) return call.reply;
    return sendJson(call.reply, 200, (await call.ctx.store.shares.listShares(v.id)).map(shareJson));
  },
};

export const addShare: ApiRoute = {
  rights: VEHICLE_RIGHTS,
  async handler(call) {
    const { ctx, principal, params } = call;
    if (call.args.length !== 1) return notFound(call, 'POST /api/shares/<vehicle>');
    const v = await owned(call);
    if (!v) return call.reply;
    const name = params.user ?? '';
    const access = (params.access ?? '').toLowerCase() as ShareAccess;
    if (!USER_NAME.test(name)) return badInput(call, 'user: the user name to share the vehicle with');
    if (!SHARE_ACCESS.includes(access)) return badInput(call, 'access: view or control');
    const user = await ctx.store.getOwnerByName(name);
    if (!user || user.disabled) return noSuchUser(call);
    if (user.id === principal.ownerId) return badInput(call, 'user: the vehicle is yours already');
    const before = await ctx.store.shares.getShare(v.id, user.id);
    if (before === undefined && (await ctx.store.shares.listShares(v.id)).length >= MAX_SHARES) {
      return badInput(call, `the vehicle is shared with ${MAX_SHARES} users already: revoke a share first`);
    }
    const share = await ctx.store.shares.putShare(v.id, user.id, access, ctx.hub.seconds());
    // a lesser access takes effect at once on the connections opened with the old one
    if (before !== undefined && before !== access) ctx.hub.access.revoke(v.id, user.id);
    await record(call, 'share.add', v.id, { user: user.name, access });
    return sendJson(call.reply, before === undefined ? 201 : 200, shareJson(share));
  },
};

export const removeShare: ApiRoute = {
  rights: VEHICLE_RIGHTS,
  async handler(call) {
    const { ctx } = call;
    if (call.args.length !== 2) return notFound(call, 'DELETE /api/shares/<vehicle>/<user>');
    const v = await owned(call);
    if (!v) return call.reply;
    const user = await ctx.store.getOwnerByName(call.args[1] ?? '');
    if (!user || !(await ctx.store.shares.removeShare(v.id, user.id))) return notFound(call, 'the vehicle is not shared with that user');
    ctx.hub.access.revoke(v.id, user.id);
    await record(call, 'share.revoke', v.id, { user: user.name });
    return status(call.reply, 204).send();
  },
};
