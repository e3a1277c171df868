/**
 * API tokens: `GET`, `POST /api/token` and `DELETE /api/token/<TOKEN>` (docs/protocol/http-api-v2.md §4.3).
 * A token is 256 random bits (64 hex characters), shown once at creation; only its SHA-256 is
 * stored. Where REF lists the token itself, vts lists that hash: it identifies the token (it can
 * be passed to DELETE) but cannot be used to log in.
 */
import { audit } from '../../util/audit.js';
import { clientAddress } from '../params.js';
import { hashApiToken, newApiToken } from '../../auth/api-token.js';
import { hasRight, parseRights } from '../../core/auth/rights.js';
import { formatUtc } from '../../core/time.js';
import type { ApiToken } from '../../store/store.js';
import { badRequest, forbidden, sendJson, sendText } from '../reply.js';
import type { ApiRoute } from '../api-call.js';

const TOKEN_RIGHTS = ['token.admin', 'admin'] as const;
const MAX_TEXT = 255;
/** One right of a permit list (the list is `*`, or rights separated by commas and spaces). */
const RIGHT = /^[A-Za-z0-9_.*-]+$/;

function validPermit(permit: string): boolean {
  if (permit.trim() === '*') return true;
  const items = permit.split(',').map((r) => r.trim());
  return items.length > 0 && items.every((r) => RIGHT.test(r));
}

function tokenRow(t: ApiToken, ownerName: string): Record<string, string> {
  const created = formatUtc(t.created);
  return {
    application: t.application,
    created,
    lastused: t.lastUsed === null ? created : formatUtc(t.lastUsed),
    owner: ownerName,
    permit: t.permit,
    purpose: t.purpose,
    refreshed: created,
    token: t.tokenHash,
  };
}

export const listTokens: ApiRoute = {
  rights: TOKEN_RIGHTS,
  async handler({ ctx, reply, principal }) {
    const tokens = await ctx.store.listApiTokens(principal.ownerId);
    tokens.sort((a, b) => a.created - b.created || (a.tokenHash < b.tokenHash ? -1 : 1));
    return sendJson(reply, 200, tokens.map((t) => tokenRow(t, principal.ownerName)));
  },
};

/**
 * A token may not carry rights its creator does not have (REF allowed that escalation). `auth`
 * (authenticated, no named right) and `none` are within anyone's rights.
 */
function withinCreatorRights(permit: string, creatorPermit: string): boolean {
  if (creatorPermit.trim() === '*') return true;
  if (permit.trim() === '*') return false;
  return [...parseRights(permit)].every((r) => r === 'none' || r === 'auth' || hasRight(creatorPermit, r));
}

export const createToken: ApiRoute = {
  rights: TOKEN_RIGHTS,
  async handler({ ctx, req, reply, principal, params }) {
    const application = params.application ?? 'notspecified';
    const purpose = params.purpose ?? 'notspecified';
    // stored and echoed as sent, like REF (rights compare case-insensitively, spaces ignored)
    const permit = params.permit ?? 'auth';
    if (application.length > MAX_TEXT || purpose.length > MAX_TEXT || permit.length > MAX_TEXT) {
      return badRequest(reply, 'Field too long (255 characters at most)');
    }
    if (!validPermit(permit)) return badRequest(reply, 'Invalid permit: a comma-separated list of rights, or *');
    if (!withinCreatorRights(permit, principal.permit)) return forbidden(reply);
    const token = newApiToken();
    await ctx.store.addApiToken({
      ownerId: principal.ownerId,
      tokenHash: hashApiToken(token),
      application,
      purpose,
      permit,
      created: ctx.hub.seconds(),
      lastUsed: null,
    });
    audit(ctx.log, 'token.create', principal.ownerName, 'http', { user: principal.ownerName, application, permit, client: clientAddress(req) });
    return sendJson(reply, 201, { application, owner: principal.ownerName, permit, purpose, token });
  },
};

export const deleteToken: ApiRoute = {
  rights: TOKEN_RIGHTS,
  async handler({ ctx, req, reply, principal, args }) {
    const given = args[0] ?? '';
    if (given === '') return sendText(reply, 404, 'Token not specified', 'Token missing');
    // the token itself, or the hash that GET /api/token lists in its place
    const candidates = [hashApiToken(given.toLowerCase())];
    if (/^[0-9a-f]{64}$/i.test(given)) candidates.push(given.toLowerCase());
    for (const hash of candidates) {
      if (await ctx.store.removeApiToken(principal.ownerId, hash)) {
        await ctx.sessions.endByToken(hash);
        audit(ctx.log, 'token.revoke', principal.ownerName, 'http', { user: principal.ownerName, client: clientAddress(req) });
        break;
      }
    }
    // like REF: 200 whether or not the token existed
    return sendJson(reply, 200, { owner: principal.ownerName, token: given });
  },
};
