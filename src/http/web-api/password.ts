/**
 * `POST /api/password` with `current` and `new` (docs/web-api.md "Account"): changes the caller's
 * account password. Only a caller that proved the account password (not an API token) may; the
 * current password is checked again; the user's other web sessions end.
 */
import { hashPassword, verifyPassword } from '../../auth/password.js';
import { passwordProblem } from '../../core/auth/password-rule.js';
import type { ApiRoute } from '../api-v2/call.js';
import { status } from '../reply.js';
import { jsonError } from './session.js';

export const changePassword: ApiRoute = {
  async handler(call) {
    const { ctx, principal, params } = call;
    if (principal.tokenHash) return jsonError(call, 403, 'VTS_ERR_AUTH', 'an API token cannot change the password');
    const current = params.current ?? '';
    const next = params.new ?? '';
    // the one rule for account passwords (also `vts user add|passwd` and the dashboard's form)
    const problem = passwordProblem(next);
    if (problem) return jsonError(call, 400, 'VTS_ERR_INVALID_INPUT', problem);
    const owner = await ctx.store.getOwnerByName(principal.ownerName);
    if (!owner || !(await verifyPassword(current, owner.passwordHash))) {
      ctx.userThrottle.recordFailure(principal.ownerName.toLowerCase(), ctx.hub.seconds());
      return jsonError(call, 403, 'VTS_ERR_AUTH', 'the current password is wrong');
    }
    await ctx.store.setOwnerPassword(owner.name, await hashPassword(next));
    ctx.sessions.endWebSessions(owner.id, principal.session?.id);
    ctx.log.info({ user: owner.name }, 'password changed');
    return status(call.reply, 204).send();
  },
};
