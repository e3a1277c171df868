/**
 * `POST /api/password` with `current` and `new` (docs/web-api.md "Account"): changes the caller's
 * account password. Only a caller that proved the account password (not an API token) may; the
 * current password is checked again; the user's other web sessions end.
 */
import { userAccount } from '../../auth/login-guard.js';
import { hashPassword } from '../../auth/password.js';
import { passwordProblem } from '../../core/auth/password-rule.js';
import type { ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, status } from '../reply.js';
import { loginThrottled } from './session.js';

export const changePassword: ApiRoute = {
  async handler(call) {
    const { ctx, principal, params } = call;
    if (principal.tokenHash) return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'an API token cannot change the password', status: 403 });
    const current = params.current ?? '';
    const next = params.new ?? '';
    // the one rule for account passwords (also `vts user add|passwd` and the dashboard's form)
    const problem = passwordProblem(next);
    if (problem) return sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message: problem });
    // the current password is a secret check like a login: through the guard and the check queue
    const outcome = await ctx.guard.attempt(clientAddress(call.req), userAccount(principal.ownerName), async () => {
      const owner = await ctx.store.getOwnerByName(principal.ownerName);
      return owner && (await ctx.credentials.verify(owner.name, current, owner.id, owner.passwordHash, ctx.hub.now())) ? owner : null;
    });
    if (!outcome.ok && outcome.throttled) return loginThrottled(call, outcome.retryAfterSeconds);
    if (!outcome.ok) return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'the current password is wrong', status: 403 });
    const owner = outcome.value;
    // not through the check queue: only an owner who proved the current password gets here
    await ctx.store.setOwnerPassword(owner.name, await hashPassword(next));
    ctx.guard.throttle.forget(userAccount(owner.name));
    await ctx.sessions.endWebSessions(owner.id, principal.session?.id);
    await ctx.audit.record({ action: 'password.change', actor: owner.name, via: principal.session?.csrf ? 'web' : 'api', target: owner.name, detail: { user: owner.name, client: clientAddress(call.req) } });
    return status(call.reply, 204).send();
  },
};
