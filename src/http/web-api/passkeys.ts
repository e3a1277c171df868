/**
 * Passkeys (WebAuthn) for the dashboard (docs/accounts.md "A second factor", docs/web-api.md), with
 * @simplewebauthn/server: a signed-in owner registers one (`POST /api/account/passkeys/options`,
 * then `POST /api/account/passkeys` with the browser's answer), lists, renames and removes them;
 * anyone signs in with one (`POST /api/session/passkey/options`, then `POST /api/session/passkey`)
 * and gets the same web session and cookie as `POST /api/session`, without a TOTP code: a passkey
 * with user verification is itself two factors. The challenges live in the store for 5 minutes
 * (any node of a cluster finishes a ceremony another began) and are used once. The relying party
 * is `--public-url`'s host, else the request's (its origin must be the page's).
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { refusal } from '../../auth/authenticate.js';
import { userAccount } from '../../auth/login-guard.js';
import { hasRight } from '../../core/auth/rights.js';
import { ERRORS, isVtsError } from '../../errors.js';
import type { Passkey } from '../../store/factors-store.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, sendJson, status } from '../reply.js';
import { field, jsonBody, mayChangeSecurity } from './account-security.js';
import { loginThrottled, startWebSession } from './session.js';

const CHALLENGE_SECONDS = 300;
const NAME_MAX = 64;

/** The relying party: its id (a host name) and the origin the browser's answer must carry. */
export function relyingParty(call: ApiCall): { id: string; origin: string } {
  const publicUrl = call.ctx.factors.publicUrl;
  if (publicUrl) {
    const u = new URL(publicUrl);
    return { id: u.hostname, origin: u.origin };
  }
  const host = call.req.host;
  const u = new URL(`${call.req.protocol}://${host}`);
  return { id: u.hostname, origin: u.origin };
}

const passkeyJson = (p: Passkey) => ({ id: p.id, name: p.name, created: p.created, lastUsed: p.lastUsed, transports: p.transports });

const nowSeconds = (call: ApiCall): number => Math.floor(call.ctx.hub.now() / 1000);

/** Keeps a new challenge of `purpose` and answers it with the ceremony's options. */
async function answerCeremony(call: ApiCall, purpose: 'passkey-register' | 'passkey-signin', ownerId: number | null, options: { challenge: string }) {
  const id = randomBytes(18).toString('base64url');
  const now = nowSeconds(call);
  await call.ctx.store.factors.putChallenge({ id, ownerId, purpose, challenge: options.challenge, expires: now + CHALLENGE_SECONDS }, now);
  return sendJson(call.reply, 200, { challengeId: id, options });
}

/** The body's challenge id and browser answer, or null (a 400 sent). */
function ceremonyAnswer<T>(call: ApiCall): { challengeId: string; response: T } | null {
  const body = jsonBody(call);
  const challengeId = field(call, 'challengeId');
  const response = body.response;
  if (challengeId === '' || response === null || typeof response !== 'object' || typeof (response as { id?: unknown }).id !== 'string') {
    sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message: 'challengeId and response (the browser\'s answer) are needed' });
    return null;
  }
  return { challengeId, response: response as T };
}

const invalid = (call: ApiCall, message = 'the passkey answer does not verify') => sendError(call.reply, { code: 'VTS_ERR_PASSKEY_INVALID', message });

export const passkeyRegistrationOptions: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const rp = relyingParty(call);
    const existing = await ctx.store.factors.listPasskeys(principal.ownerId);
    const options = await generateRegistrationOptions({
      rpName: 'vts',
      rpID: rp.id,
      userName: principal.ownerName,
      userID: new TextEncoder().encode(`vts:${principal.ownerId}`),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    return answerCeremony(call, 'passkey-register', principal.ownerId, options);
  },
};

export const addPasskey: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const answer = ceremonyAnswer<RegistrationResponseJSON>(call);
    if (!answer) return call.reply;
    const name = field(call, 'name').trim() || 'Passkey';
    if (name.length > NAME_MAX) return sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message: `name: ${NAME_MAX} characters at most` });
    const challenge = await ctx.store.factors.takeChallenge(answer.challengeId, 'passkey-register', nowSeconds(call));
    if (!challenge || challenge.ownerId !== principal.ownerId) return invalid(call, 'unknown or expired challenge: begin again');
    const rp = relyingParty(call);
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response: answer.response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
    } catch (err) {
      ctx.log.info({ user: principal.ownerName, err: (err as Error).message }, 'passkey registration refused');
      return invalid(call);
    }
    if (!verified.verified) return invalid(call);
    const c = verified.registrationInfo.credential;
    const passkey: Passkey = {
      id: c.id,
      ownerId: principal.ownerId,
      publicKey: Buffer.from(c.publicKey).toString('base64url'),
      counter: c.counter,
      transports: c.transports ?? [],
      name,
      created: nowSeconds(call),
      lastUsed: null,
    };
    try {
      await ctx.store.factors.addPasskey(passkey);
    } catch (err) {
      if (isVtsError(err) && err.code === 'VTS_ERR_CONFLICT') return sendError(call.reply, { code: 'VTS_ERR_CONFLICT', message: err.message });
      throw err;
    }
    await ctx.audit.record({ action: 'passkey.add', actor: principal.ownerName, via: 'web', target: principal.ownerName, detail: { passkey: name } });
    return sendJson(call.reply, 201, passkeyJson(passkey));
  },
};

export const listPasskeys: ApiRoute = {
  async handler(call) {
    const list = await call.ctx.store.factors.listPasskeys(call.principal.ownerId);
    return sendJson(call.reply, 200, list.map(passkeyJson));
  },
};

const notFound = (call: ApiCall) => sendError(call.reply, { code: 'VTS_ERR_NOT_FOUND', message: 'no such passkey' });

export const renamePasskey: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    const id = call.args[1] ?? '';
    const name = field(call, 'name').trim();
    if (name === '' || name.length > NAME_MAX) return sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message: `name: 1 to ${NAME_MAX} characters` });
    if (!(await ctx.store.factors.renamePasskey(principal.ownerId, id, name))) return notFound(call);
    const p = await ctx.store.factors.getPasskey(id);
    return p ? sendJson(call.reply, 200, passkeyJson(p)) : notFound(call);
  },
};

export const removePasskey: ApiRoute = {
  async handler(call) {
    if (!mayChangeSecurity(call)) return call.reply;
    const { ctx, principal } = call;
    if (!(await ctx.store.factors.removePasskey(principal.ownerId, call.args[1] ?? ''))) return notFound(call);
    await ctx.audit.record({ action: 'passkey.remove', actor: principal.ownerName, via: 'web', target: principal.ownerName });
    return status(call.reply, 204).send();
  },
};

export const passkeySignInOptions: ApiRoute = {
  public: true,
  async handler(call) {
    // a discoverable credential: the authenticator offers the passkeys it holds for this site
    const options = await generateAuthenticationOptions({ rpID: relyingParty(call).id, userVerification: 'required' });
    return answerCeremony(call, 'passkey-signin', null, options);
  },
};

export const passkeySignIn: ApiRoute = {
  public: true,
  async handler(call) {
    const { ctx } = call;
    const answer = ceremonyAnswer<AuthenticationResponseJSON>(call);
    if (!answer) return call.reply;
    const challenge = await ctx.store.factors.takeChallenge(answer.challengeId, 'passkey-signin', nowSeconds(call));
    if (!challenge) return invalid(call, 'unknown or expired challenge: begin again');
    const passkey = await ctx.store.factors.getPasskey(answer.response.id);
    const owner = passkey && (await ctx.store.getOwnerById(passkey.ownerId));
    const rp = relyingParty(call);
    // a signature check is a secret check: through the login guard like a password
    const outcome = await ctx.guard.attempt(clientAddress(call.req), owner ? userAccount(owner.name) : 'passkey:unknown', async () => {
      if (!passkey || !owner) return null;
      try {
        const v = await verifyAuthenticationResponse({
          response: answer.response,
          expectedChallenge: challenge.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: { id: passkey.id, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports },
          requireUserVerification: true,
        });
        return v.verified ? v.authenticationInfo.newCounter : null;
      } catch (err) {
        ctx.log.info({ user: owner.name, err: (err as Error).message }, 'passkey sign-in refused');
        return null;
      }
    });
    if (!outcome.ok && outcome.throttled) return loginThrottled(call, outcome.retryAfterSeconds);
    if (!outcome.ok || !passkey || !owner) {
      if (owner) void ctx.audit.record({ action: 'session.signin_failed', actor: '', via: 'web', target: owner.name, detail: { client: clientAddress(call.req), reason: 'VTS_ERR_PASSKEY_INVALID' } });
      return invalid(call);
    }
    await ctx.store.factors.usePasskey(passkey.id, outcome.value, nowSeconds(call));
    const why = refusal({ owner, permit: owner.rights, via: 'password' }, 'web');
    if (why) return sendError(call.reply, { code: why, message: ERRORS[why] });
    if (!hasRight(owner.rights, 'session')) return sendError(call.reply, { code: 'VTS_ERR_AUTH', message: 'this account may not sign in on the dashboard' });
    return startWebSession(call, owner, owner.rights, undefined, 'passkey');
  },
};
