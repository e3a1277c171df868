/** The OpenAPI description of sign-up and recovery (docs/web-api.md "Sign-up and recovery"; routes in account.ts). */
import { apiOp, exact, headerRef, json, jsonError, jsonErrorResponse, NO_LOGIN } from '../openapi/common.js';
import type { Operation, Paths, RequestBody, Response, Schema } from '../openapi/types.js';

const TAG = 'Account';
const err = jsonErrorResponse;

const STRING: Schema = { type: 'string' };
const TOKEN: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'The `token=` of the mailed link.' };
const EMAIL: Schema = { type: 'string', maxLength: 254, examples: ['owner@example.org'] };
const PASSWORD: Schema = { type: 'string', minLength: 8, maxLength: 1024 };

const body = (description: string, properties: Record<string, Schema>, required: readonly string[]): RequestBody => ({
  description,
  required: true,
  content: { 'application/json': { schema: { type: 'object', properties, required: [...required] } } },
});

const ACCEPTED: Response = json(
  'Taken: a mail goes out if the accounts allow it (the answer is the same whether or not an account has that name or address).',
  exact('Accepted.', { accepted: { type: 'boolean', const: true } }),
);
const BAD_INPUT = err('A field is missing or malformed; the message starts with it (`username`, `email`, `password`), or the body is not a JSON object.', ['VTS_ERR_INVALID_INPUT']);
const MAIL_OFF = err('The server cannot send mail (no `--smtp-url`).', ['VTS_ERR_MAIL_OFF']);
const BAD_TOKEN = err('The token is unknown, used or expired (or a field is malformed).', ['VTS_ERR_TOKEN_INVALID', 'VTS_ERR_INVALID_INPUT']);
const THROTTLED: Response = {
  description: 'Too many attempts from this address (for this mail address); or the request rate limit (an empty text body after a delay).',
  headers: { 'Retry-After': headerRef('RetryAfter') },
  content: { 'application/json': { schema: jsonError(['VTS_ERR_LOGIN_THROTTLED']) }, 'text/plain': { schema: { type: 'string', const: '' } } },
};

export const ACCOUNT_DOCS = {
  accountOptions: apiOp('get', {
    operationId: 'accountOptions',
    summary: 'What the sign-in page may offer: sign-up, password reset',
    description: '`mail`: the server sends mail (`--smtp-url`), so a password can be reset; `registration`: `off`, `open` or `invite` (`off` whenever mail is off).',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    responses: {
      '200': json(
        'The options.',
        exact('The sign-up options.', { mail: { type: 'boolean' }, registration: { type: 'string', enum: ['off', 'open', 'invite'] } }),
      ),
    },
  }),
  signUp: apiOp('post', {
    operationId: 'signUp',
    summary: 'Sign up: an account that works once the mailed link is followed',
    description:
      'With `--registration open` (or `invite` and a code of `vts invite create`). The answer is 202 whether or not the name or the address is taken: ' +
      'a new account gets a mail with `<public-url>/verify?token=…`; a taken address gets a note to its holder instead, a taken name a note to the given address.',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: body('The new account.', { username: { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,60}$' }, email: EMAIL, password: PASSWORD, invite: STRING }, ['username', 'email', 'password']),
    responses: {
      '202': ACCEPTED,
      '400': err('A field is missing or malformed (the message starts with it), or the invitation code is missing, unknown, used up or expired.', ['VTS_ERR_INVALID_INPUT', 'VTS_ERR_INVITE_INVALID']),
      '403': err('The server takes no sign-ups (`--registration off`).', ['VTS_ERR_REGISTRATION_OFF']),
      '429': THROTTLED,
      '503': MAIL_OFF,
    },
  }),
  verifyAccount: apiOp('post', {
    operationId: 'verifyAccount',
    summary: "Verify an account's mail address with the mailed token",
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: body('The token.', { token: TOKEN }, ['token']),
    responses: {
      '200': json('Verified: the account can sign in.', exact('The verified account.', { user: STRING, verified: { type: 'boolean', const: true } })),
      '400': BAD_TOKEN,
      '429': THROTTLED,
    },
  }),
  resendVerification: apiOp('post', {
    operationId: 'resendVerification',
    summary: 'Mail a new verification link to an account not verified yet',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: body('The address.', { email: EMAIL }, ['email']),
    responses: { '202': ACCEPTED, '400': BAD_INPUT, '429': THROTTLED, '503': MAIL_OFF },
  }),
  requestReset: apiOp('post', {
    operationId: 'requestReset',
    summary: 'Mail a password reset link (valid 1 hour) to the account of an address',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: body('The address.', { email: EMAIL }, ['email']),
    responses: { '202': ACCEPTED, '400': BAD_INPUT, '429': THROTTLED, '503': MAIL_OFF },
  }),
  confirmReset: apiOp('post', {
    operationId: 'confirmReset',
    summary: 'Set a new password with the mailed token; every session of the account ends',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: body('The token and the new password.', { token: TOKEN, password: PASSWORD }, ['token', 'password']),
    responses: {
      '200': json('Set: sign in with the new password.', exact('The account.', { user: STRING })),
      '400': BAD_TOKEN,
      '429': THROTTLED,
    },
  }),
} satisfies Record<string, Operation>;

/** `GET /verify` and `GET /reset`, the mailed links (src/http/web-api/account-links.ts). */
export const ACCOUNT_LINK_PATHS: Paths = Object.fromEntries(
  (['verify', 'reset'] as const).map((page) => [
    `/${page}`,
    {
      get: {
        operationId: page === 'verify' ? 'verifyLink' : 'resetLink',
        summary: page === 'verify' ? 'The mailed link that verifies an address' : 'The mailed link that resets a password',
        description: `Redirects to the dashboard's page \`/#/${page}?token=…\`, which posts the token.`,
        tags: [TAG],
        security: NO_LOGIN,
        parameters: [{ name: 'token', in: 'query', required: false, description: 'The mailed token.', schema: { type: 'string' } }],
        responses: {
          '302': { description: 'To the dashboard page.', headers: { Location: { description: `\`/#/${page}?token=…\``, schema: { type: 'string', pattern: `^/#/${page}` } } } },
        },
      },
    },
  ]),
);
