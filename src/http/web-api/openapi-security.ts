/**
 * The OpenAPI description of the account and second-factor calls (docs/web-api.md "Account and
 * second factors"; routes in account-security.ts and passkeys.ts). Schemas inline: they are used
 * here only.
 */
import { apiOp, exact, json, jsonError, jsonErrorResponse, NO_LOGIN, path, textLine } from '../openapi/common.js';
import type { Operation, RequestBody, Response, Schema } from '../openapi/types.js';

const TAG = 'Account';
const err = jsonErrorResponse;

const SESSION_ONLY = {
  json: ['VTS_ERR_FORBIDDEN'],
  why: 'the call came with an API token or a password login of the API, not a dashboard session (`VTS_ERR_FORBIDDEN`)',
};

/** A wrong code (JSON), or no login at all (the hall's line of text). */
const wrongCode = (description: string): Response => ({
  description,
  content: { 'application/json': { schema: jsonError(['VTS_ERR_TOTP_INVALID']) }, 'text/plain': { schema: textLine('Authentication failed') } },
});

const jsonBody = (description: string, schema: Schema, required = true): RequestBody => ({ description, required, content: { 'application/json': { schema } } });

const CODE: Schema = {
  type: 'object',
  properties: { code: { type: 'string', description: 'Six digits of the authenticator app, or (to disable) one of the recovery codes.', examples: ['123456'] } },
  required: ['code'],
};

export const ACCOUNT: Schema = exact("The signed-in owner's account (no secret in it).", {
  user: { type: 'string' },
  email: { type: ['string', 'null'] },
  verified: { type: 'boolean' },
  admin: { type: 'boolean' },
  apiPasswords: { type: 'boolean', description: 'Whether the account password logs in on the API v2, MP and MQTT (false: API tokens only).' },
  totpEnabled: { type: 'boolean' },
  recoveryCodesLeft: { type: 'integer', minimum: 0 },
  passkeys: { type: 'integer', minimum: 0, description: 'How many passkeys the account has.' },
});

const PASSKEY: Schema = exact('A passkey of the owner (never its key).', {
  id: { type: 'string', description: 'The credential id (base64url).' },
  name: { type: 'string' },
  created: { type: 'integer', minimum: 0 },
  lastUsed: { type: ['integer', 'null'], minimum: 0 },
  transports: { type: 'array', items: { type: 'string' } },
});

/** The options of a WebAuthn ceremony (@simplewebauthn/server's JSON, for navigator.credentials), with the id to send back. */
const CEREMONY: Schema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string', description: 'Sent back with the answer (the challenge is kept 5 minutes, on any node).' },
    options: { type: 'object', description: 'PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON.' },
  },
  required: ['challengeId', 'options'],
};

const ANSWER: Schema = {
  type: 'object',
  properties: {
    challengeId: { type: 'string' },
    response: { type: 'object', description: "The browser's answer (RegistrationResponseJSON / AuthenticationResponseJSON, as @simplewebauthn/browser gives it)." },
    name: { type: 'string', maxLength: 64, description: 'Registration only: a name for the passkey.' },
  },
  required: ['challengeId', 'response'],
};

const PASSKEY_ID = path('id', 'The credential id (base64url).');

export const SECURITY_DOCS = {
  readAccount: apiOp('get', {
    operationId: 'readAccount',
    summary: "The signed-in owner's account: name, mail address, state, second factors",
    tag: TAG,
    style: 'json',
    responses: { '200': json('The account.', ACCOUNT) },
  }),
  changeAccount: apiOp('put', {
    operationId: 'changeAccount',
    summary: 'Change the sign-in settings: whether the account password logs in on the API v2, MP and MQTT',
    description: 'With `apiPasswords` false, apps and modules log in with API tokens only; the dashboard still takes the password.',
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    requestBody: jsonBody('The setting.', { type: 'object', properties: { apiPasswords: { type: 'boolean' } }, required: ['apiPasswords'] }),
    responses: { '200': json('Changed: the account.', ACCOUNT), '400': err('`apiPasswords` is not true or false.', ['VTS_ERR_INVALID_INPUT']) },
  }),
  beginTotp: apiOp('post', {
    operationId: 'beginTotp',
    summary: 'Begin a TOTP enrolment: a new secret and its otpauth URI (not in force until confirmed)',
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    responses: {
      '200': json(
        'The secret (base32) and the URI for the QR code.',
        exact('A TOTP secret.', { secret: { type: 'string', pattern: '^[A-Z2-7]+$' }, uri: { type: 'string', pattern: '^otpauth://totp/' } }),
      ),
      '409': err('TOTP is on already.', ['VTS_ERR_CONFLICT']),
    },
  }),
  confirmTotp: apiOp('post', {
    operationId: 'confirmTotp',
    summary: 'Confirm the enrolment with a first code: TOTP is on; the ten recovery codes are answered once',
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    requestBody: jsonBody('The first code.', CODE),
    responses: {
      '401': wrongCode('A wrong code (the session goes on; `VTS_ERR_TOTP_INVALID`), or no login (text).'),
      '200': json('On.', exact('The recovery codes, shown this once.', { recoveryCodes: { type: 'array', items: { type: 'string' }, minItems: 10, maxItems: 10 } })),
      '409': err('No enrolment begun, or TOTP is on already.', ['VTS_ERR_CONFLICT']),
    },
  }),
  disableTotp: apiOp('delete', {
    operationId: 'disableTotp',
    summary: 'Turn TOTP off with a code or a recovery code (the recovery codes go too)',
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    requestBody: jsonBody('A code.', CODE),
    responses: {
      '204': { description: 'Off.' },
      '401': wrongCode('A wrong or used code (the session goes on; `VTS_ERR_TOTP_INVALID`), or no login (text).'),
      '409': err('TOTP is not on.', ['VTS_ERR_CONFLICT']),
    },
  }),
  passkeyOptions: apiOp('post', {
    operationId: 'passkeyRegistrationOptions',
    summary: 'Begin registering a passkey: the WebAuthn creation options',
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    responses: { '200': json('The options and the challenge id.', CEREMONY) },
  }),
  addPasskey: apiOp('post', {
    operationId: 'addPasskey',
    summary: "Finish registering a passkey with the authenticator's answer",
    tag: TAG,
    style: 'json',
    forbidden: SESSION_ONLY,
    requestBody: jsonBody('The answer.', ANSWER),
    responses: {
      '201': json('Registered.', PASSKEY),
      '400': err('The answer is missing or malformed, or its name is too long.', ['VTS_ERR_INVALID_INPUT']),
      '401': err('The answer does not verify, or its challenge is unknown or expired.', ['VTS_ERR_PASSKEY_INVALID']),
      '409': err('That passkey is registered already.', ['VTS_ERR_CONFLICT']),
    },
  }),
  listPasskeys: apiOp('get', {
    operationId: 'listPasskeys',
    summary: "The owner's passkeys",
    tag: TAG,
    style: 'json',
    responses: { '200': json('The passkeys, oldest first.', { type: 'array', items: PASSKEY }) },
  }),
  renamePasskey: apiOp('put', {
    operationId: 'renamePasskey',
    summary: 'Rename a passkey',
    tag: TAG,
    style: 'json',
    parameters: [PASSKEY_ID],
    forbidden: SESSION_ONLY,
    requestBody: jsonBody('The new name.', { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['name'] }),
    responses: {
      '200': json('Renamed.', PASSKEY),
      '400': err('No name, or longer than 64 characters.', ['VTS_ERR_INVALID_INPUT']),
      '404': err('No such passkey of the owner.', ['VTS_ERR_NOT_FOUND']),
    },
  }),
  removePasskey: apiOp('delete', {
    operationId: 'removePasskey',
    summary: 'Remove a passkey',
    tag: TAG,
    style: 'json',
    parameters: [PASSKEY_ID],
    forbidden: SESSION_ONLY,
    responses: { '204': { description: 'Removed.' }, '404': err('No such passkey of the owner.', ['VTS_ERR_NOT_FOUND']) },
  }),
  passkeySignInOptions: apiOp('post', {
    operationId: 'passkeySignInOptions',
    summary: 'Begin a sign-in with a passkey: the WebAuthn request options',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    responses: { '200': json('The options and the challenge id.', CEREMONY) },
  }),
  passkeySignIn: apiOp('post', {
    operationId: 'passkeySignIn',
    summary: 'Sign in with a passkey: the same web session and cookie as `POST /api/session` (no TOTP code asked)',
    tag: TAG,
    style: 'json',
    security: NO_LOGIN,
    requestBody: jsonBody('The answer.', ANSWER),
    responses: {
      '200': json('Signed in; the cookie is set.', { $ref: '#/components/schemas/WebSession' }),
      '400': err('The answer is missing or malformed.', ['VTS_ERR_INVALID_INPUT']),
      '401': err('The answer does not verify, its passkey is unknown, or its challenge is unknown or expired.', ['VTS_ERR_PASSKEY_INVALID', 'VTS_ERR_AUTH']),
      '403': err('The account is disabled or not verified.', ['VTS_ERR_ACCOUNT_DISABLED', 'VTS_ERR_UNVERIFIED']),
    },
  }),
} satisfies Record<string, Operation>;
