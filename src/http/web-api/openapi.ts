/**
 * The OpenAPI description of vts's own calls for the web dashboard and other tools (docs/web-api.md): browser sessions with
 * CSRF tokens, the password, the overview, the live stream (Server-Sent Events), the history
 * series and trips, and push notifications. Errors are `{"error","message"}`, but for the
 * hall's own (401 `Authentication failed`, 403 `Insufficient rights`, 429), which stay text. One
 * operation per row of the group's table (routes.ts).
 */
import { apiOp, formBody, headerRef, json, jsonError, jsonErrorResponse, NO_LOGIN, NOT_YOURS, path, query, ref, vehicleParams } from '../openapi/common.js';
import type { Operation, Response, Schema } from '../openapi/types.js';

const WEB = 'Web API';
const PUSH = 'Push';
const PUSH_RIGHTS = ['push.admin', 'admin'] as const;

const err = jsonErrorResponse;
const arrayOf = (name: string): Schema => ({ type: 'array', items: ref(name) });
const noContent = (description: string): Response => ({ description });

const SET_COOKIE = {
  description: '`svcapisession=<id>; Path=/; HttpOnly; SameSite=Strict` (and `; Secure` over HTTPS).',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_]+=[^;]+; Path=/; HttpOnly; SameSite=Strict(; Secure)?$' },
} as const;

/** The rate limiter's empty 429 and the login throttle's line (src/http/auth.ts). */
const RATE_LIMITED: Schema = { type: 'string', pattern: '^(|Too many failed logins: try again in \\d+ s\\n)$' };

const NOTIFICATION_LIMIT = query('limit', 'How many, 1–200 (default 50).', { type: 'string', pattern: '^\\d{1,4}$' });

export const WEB_DOCS = {
  signIn: apiOp('post', {
    operationId: 'signIn',
    summary: 'Sign in: open a web session with a CSRF token',
    description:
      'The user name and the account password (or a token with the right `session`) as JSON or a form. The session is the kind ' +
      '`GET /api/cookie` opens, but with its own sliding expiry (`--web-session-timeout`, 7 days by default; `timeout` in the answer); its `POST`, `PUT` and `DELETE` calls need `X-CSRF-Token`.',
    tag: WEB,
    style: 'json',
    security: NO_LOGIN,
    requestBody: {
      description: 'The credentials (they may come in the query string too).',
      required: true,
      content: {
        'application/json': { schema: ref('Credentials') },
        ...formBody('', ref('Credentials')).content,
      },
    },
    responses: {
      '200': json('Signed in; the cookie is set.', ref('WebSession'), { 'Set-Cookie': SET_COOKIE }),
      '401': err(
        'Wrong user name or password, or a login without the right `session`; or (after a right password) the account has TOTP and no `code` came (`VTS_ERR_TOTP_REQUIRED`: ask for it and send all three again), or a wrong or used one (`VTS_ERR_TOTP_INVALID`).',
        ['VTS_ERR_AUTH', 'VTS_ERR_TOTP_REQUIRED', 'VTS_ERR_TOTP_INVALID'],
      ),
      '429': {
        description: 'Too many failed logins (JSON), or the address is over the request rate limit (an empty text body after a delay).',
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: { 'application/json': { schema: jsonError(['VTS_ERR_LOGIN_THROTTLED']) }, 'text/plain': { schema: RATE_LIMITED } },
      },
    },
  }),
  whoAmI: apiOp('get', {
    operationId: 'whoAmI',
    summary: 'The signed-in user and the CSRF token again',
    tag: WEB,
    style: 'json',
    responses: {
      '200': json('The session.', ref('WebSession')),
      '401': err('No web session: no cookie, an ended one, or a login that is not a web session (`username`/`password`, a `GET /api/cookie` session).', ['VTS_ERR_AUTH']),
    },
  }),
  signOut: apiOp('delete', {
    operationId: 'signOut',
    summary: 'Sign out: end the web session',
    tag: WEB,
    style: 'json',
    responses: {
      '204': { description: 'Signed out; the cookie is cleared.', headers: { 'Set-Cookie': { description: 'The cookie with `Max-Age=0`.', schema: { type: 'string' } } } },
    },
  }),
  changePassword: apiOp('post', {
    operationId: 'changePassword',
    summary: "Change the caller's account password",
    description: 'Needs a login with the account password or a web session opened with it (not an API token). The user\'s other web sessions end.',
    tag: WEB,
    style: 'json',
    parameters: [query('current', 'The current password (also in the body).', { type: 'string' }), query('new', 'The new password (also in the body).', { type: 'string' })],
    requestBody: { description: 'The passwords.', required: false, content: { 'application/json': { schema: ref('PasswordChange') }, ...formBody('', ref('PasswordChange')).content } },
    forbidden: { json: ['VTS_ERR_AUTH'], why: 'the current password is wrong, or the login is an API token (`VTS_ERR_AUTH`)' },
    responses: {
      '204': noContent('Changed.'),
      '400': err('The new password breaks the rule (8 to 1024 characters, no line break).', ['VTS_ERR_INVALID_INPUT']),
      '429': {
        description: 'Too many wrong current passwords (JSON); a login over a limit, or the request rate limit: text.',
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: { 'application/json': { schema: jsonError(['VTS_ERR_LOGIN_THROTTLED']) }, 'text/plain': { schema: RATE_LIMITED } },
      },
    },
  }),
  overview: apiOp('get', {
    operationId: 'overview',
    summary: 'Every vehicle of the caller with its state',
    tag: WEB,
    style: 'json',
    responses: { '200': json('Ordered by vehicle id.', arrayOf('OverviewRow')) },
  }),
  live: apiOp('get', {
    operationId: 'live',
    summary: 'Live updates of the vehicle (Server-Sent Events)',
    description:
      'Stays open and counts as an app of the vehicle. Events: `hello` `{"vehicle","time"}`; `link` `{"online","link","apps","batches"}`; ' +
      '`record` `{"code","data","time"}` (the stored records first, then every message of the car); `notification` `{"type","text","time"}`; ' +
      'a comment `: ping` every 25 s.',
    tag: WEB,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: {
      '200': {
        description: 'The event stream.',
        content: { 'text/event-stream': { schema: { type: 'string', description: 'Lines `event: <name>` and `data: <JSON>`, a blank line after each event.' } } },
      },
    },
  }),
  history: apiOp('get', {
    operationId: 'history',
    summary: 'Chart series and trips of a period',
    description: 'From the historical records (`--message-history`); the records at `from` and `to` included.',
    tag: WEB,
    style: 'json',
    parameters: vehicleParams(
      query('from', 'Epoch seconds (default: `to` − 24 h).', { type: 'string', pattern: '^\\d{1,12}$' }),
      query('to', 'Epoch seconds (default: now); at most 31 days after `from`.', { type: 'string', pattern: '^\\d{1,12}$' }),
    ),
    forbidden: NOT_YOURS,
    responses: {
      '200': json('The series and trips.', ref('History')),
      '400': err('`from` or `to` not epoch seconds, `from` after `to`, or more than 31 days apart.', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
  listSubscriptions: apiOp('get', {
    operationId: 'listSubscriptions',
    summary: "The apps' push subscriptions of every vehicle of the caller",
    tag: PUSH,
    style: 'json',
    responses: { '200': json('Ordered by vehicle, then app id.', arrayOf('Subscription')) },
  }),
  listVehicleSubscriptions: apiOp('get', {
    operationId: 'listVehicleSubscriptions',
    summary: "The apps' push subscriptions of one vehicle",
    tag: PUSH,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '200': json('Ordered by app id.', arrayOf('Subscription')) },
  }),
  deleteSubscription: apiOp('delete', {
    operationId: 'deleteSubscription',
    summary: "Delete an app's subscription",
    tag: PUSH,
    style: 'json',
    rights: PUSH_RIGHTS,
    parameters: vehicleParams(path('appId', 'The app id of the subscription.')),
    forbidden: NOT_YOURS,
    responses: { '204': noContent('Deleted.'), '404': err('No such subscription.', ['VTS_ERR_NOT_FOUND']) },
  }),
  listTargets: apiOp('get', {
    operationId: 'listTargets',
    summary: "The caller's own notification targets (webhook, ntfy)",
    tag: PUSH,
    style: 'json',
    responses: { '200': json('Ordered by id.', arrayOf('Target')) },
  }),
  addTarget: apiOp('post', {
    operationId: 'addTarget',
    summary: 'Add a notification target',
    description: 'At most 20 targets. A webhook gets a JSON POST per notification, signed with the secret when there is one.',
    tag: PUSH,
    style: 'json',
    rights: PUSH_RIGHTS,
    parameters: [
      query('kind', '`webhook` or `ntfy` (also in the body).', { type: 'string', enum: ['webhook', 'ntfy'] }),
      query('url', 'The URL (also in the body).', { type: 'string' }),
      query('secret', 'Webhooks only (also in the body).', { type: 'string' }),
    ],
    requestBody: { description: 'The target.', required: false, content: { 'application/json': { schema: ref('NewTarget') }, ...formBody('', ref('NewTarget')).content } },
    responses: {
      '201': json('Added: the target as listed.', ref('Target')),
      '400': err('A kind other than webhook or ntfy, a bad URL or secret, or a 21st target.', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
  deleteTarget: apiOp('delete', {
    operationId: 'deleteTarget',
    summary: 'Remove a notification target',
    tag: PUSH,
    style: 'json',
    rights: PUSH_RIGHTS,
    parameters: [path('id', 'The target id.', { type: 'string', pattern: '^\\d{1,9}$' })],
    responses: { '204': noContent('Removed.'), '404': err('Not one of the caller\'s targets.', ['VTS_ERR_NOT_FOUND']) },
  }),
  notifications: apiOp('get', {
    operationId: 'notifications',
    summary: "The vehicle's newest notifications with their deliveries and attempts",
    tag: PUSH,
    style: 'json',
    parameters: vehicleParams(NOTIFICATION_LIMIT),
    forbidden: NOT_YOURS,
    responses: {
      '200': json('Newest first.', arrayOf('Notification')),
      '400': err('`limit` out of range.', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
} satisfies Record<string, Operation>;
