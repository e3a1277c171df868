/**
 * The signed-in owner's account and its sign-in settings (docs/accounts.md "A second factor",
 * docs/web-api.md "Account"): `GET /api/account` (no secret in it), `PUT /api/account`
 * `{"apiPasswords"}`, and the TOTP second factor: `POST /api/account/totp` begins an enrolment
 * (a new secret, not in force yet), `POST /api/account/totp/confirm` `{"code"}` puts it in force
 * and answers the ten recovery codes once, `DELETE /api/account/totp` `{"code"}` (a TOTP or a
 * recovery code) removes it. Changes are made from a web session of the account password only
 * (not with an API token, not with a password login of the API): a stolen app password does not
 * turn the factor off. Every code is checked through the login guard, like a password.
 */
import { userAccount } from '../../auth/login-guard.js';
import { checkSecondFactor, hashRecoveryCode, newRecoveryCodes, newTotpSecret, openTotpSecret, sealTotpSecret } from '../../auth/totp.js';
import { matchTotp, otpauthUri } from '../../core/auth/totp.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, sendJson, status } from '../reply.js';
import { loginThrottled } from './session.js';

/** The request's JSON object (a DELETE's body too, which the form parsers leave alone), else {}. */
export function jsonBody(call: ApiCall): Record<string, unknown> {
  const b = call.req.body;
  return b !== null && typeof b === 'object' && !Buffer.isBuffer(b) && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** A text field of the body or the parameters ('' when none). */
export function field(call: ApiCall, name: string): string {
  const v = jsonBody(call)[name] ?? call.params[name];
  return typeof v === 'string' ? v : '';
}

/**
 * Whether the caller may change the account's sign-in settings: a web session opened with the
 * account password or a passkey (a 403 is sent otherwise).
 */
export function mayChangeSecurity(call: ApiCall): boolean {
  const { principal } = call;
  if (principal.session?.csrf && !principal.tokenHash) return true;
  sendError(call.reply, { code: 'VTS_ERR_FORBIDDEN', message: 'only a dashboard session signed in with the account password changes this' });
  return false;
}

export const readAccount: ApiRoute = {
  async handler(call) {
    const { ctx, principal } = call;
    const owner = await ctx.store.getOwnerById(principal.ownerId);
    if (!owner) return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'not signed in' });
    const recoveryCodes = owner.totpEnabled ? await ctx.store.factors.countRecoveryCodes(owner.id) : 0;
    return sendJson(call.reply, 200, {
      user: owner.name,
      email: owner.email,
      verified: owner.verified,
      admin: owner.admin,
      apiPasswords: owner.apiPasswords,
      totpEnabled: owner.totpEnabled,
      recoveryCodesLeft: recoveryCodes,
      passkeys: (await ctx.store.factors.listPasskeys(owner.id)).length,
    });
  },
};

/** `{"apiPasswords": true|false}` (a form's "true"/"false" too). */
function booleanField(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'on') return true;
  if (v === 'false' || v === 'off') return false;
  return null;
}

export const changeAccount: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const body = jsonBody(call);
    const raw = 'apiPasswords' in body ? body.apiPasswords : call.params.apiPasswords;
    const allowed = booleanField(raw);
    if (allowed === null) return sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message: 'apiPasswords: true or false' });
    await ctx.store.factors.setApiPasswords(principal.ownerId, allowed);
    await ctx.audit.record({ action: 'account.change', actor: principal.ownerName, via: 'web', target: principal.ownerName, detail: { apiPasswords: allowed } });
    return readAccount.handler(call);
  },
};

export const beginTotp: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const secret = newTotpSecret();
    const begun = await ctx.store.factors.beginTotp(principal.ownerId, sealTotpSecret(ctx.factors.sealKey(), secret, principal.ownerId));
    if (!begun) return sendError(call.reply, { code: 'VTS_ERR_CONFLICT', message: 'TOTP is on already: turn it off first' });
    return sendJson(call.reply, 200, { secret, uri: otpauthUri(principal.ownerName, secret) });
  },
};

/** A wrong code: 401 `VTS_ERR_TOTP_INVALID` (the session goes on: the dashboard tells it from a signed-out 401 by its code). */
const wrongCode = (call: ApiCall) => sendError(call.reply, { code: 'VTS_ERR_TOTP_INVALID', message: 'wrong or used code' });

export const confirmTotp: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const code = field(call, 'code');
    const totp = await ctx.store.factors.getTotp(principal.ownerId);
    if (!totp || totp.enabled || totp.secret === null) {
      return sendError(call.reply, { code: 'VTS_ERR_CONFLICT', message: totp?.enabled ? 'TOTP is on already' : 'no enrolment begun: POST /api/account/totp first' });
    }
    const sealed = totp.secret;
    const outcome = await ctx.guard.attempt(clientAddress(call.req), userAccount(principal.ownerName), async () => {
      const secret = openTotpSecret(ctx.factors.sealKey(), sealed, principal.ownerId);
      return secret ? matchTotp(secret, code, ctx.hub.now(), 0) : null;
    });
    if (!outcome.ok && outcome.throttled) return loginThrottled(call, outcome.retryAfterSeconds);
    if (!outcome.ok) return wrongCode(call);
    const codes = newRecoveryCodes();
    if (!(await ctx.store.factors.enableTotp(principal.ownerId, outcome.value, codes.map(hashRecoveryCode)))) {
      return sendError(call.reply, { code: 'VTS_ERR_CONFLICT', message: 'TOTP was turned on or its enrolment begun again meanwhile' });
    }
    await ctx.audit.record({ action: 'totp.enable', actor: principal.ownerName, via: 'web', target: principal.ownerName, detail: { client: clientAddress(call.req) } });
    return sendJson(call.reply, 200, { recoveryCodes: codes });
  },
};

export const disableTotp: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const code = field(call, 'code');
    const totp = await ctx.store.factors.getTotp(principal.ownerId);
    if (!totp?.enabled) {
      // an enrolment begun and never confirmed is simply dropped
      if (totp?.secret) await ctx.store.factors.disableTotp(principal.ownerId);
      return sendError(call.reply, { code: 'VTS_ERR_CONFLICT', message: 'TOTP is not on' });
    }
    const outcome = await ctx.guard.attempt(clientAddress(call.req), userAccount(principal.ownerName), () =>
      checkSecondFactor(ctx.store, ctx.factors.sealKey(), principal.ownerId, code, ctx.hub.now()),
    );
    if (!outcome.ok && outcome.throttled) return loginThrottled(call, outcome.retryAfterSeconds);
    if (!outcome.ok) return wrongCode(call);
    await ctx.store.factors.disableTotp(principal.ownerId);
    await ctx.audit.record({ action: 'totp.disable', actor: principal.ownerName, via: 'web', target: principal.ownerName, detail: { client: clientAddress(call.req), with: outcome.value } });
    return status(call.reply, 204).send();
  },
};
