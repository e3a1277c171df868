/**
 * What the dashboard says when a call fails: a sentence for each error code of the vts API (the
 * catalogue in src/errors.ts, the JSON error bodies `{"error","message"}` of the command API and
 * docs/web-api.md), else one for the HTTP status, else the server's own words. Pure (no DOM): the
 * unit test imports it. The sentences are keyed by the catalogue's codes (a type import only: no
 * server code is bundled).
 */
import type { ErrorCode } from '../../src/errors.js';

/** Sentences for the HTTP status of answers without a known code (API v2 answers in plain text). */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The server refused the request as invalid.',
  401: 'You are not signed in (or the session has ended).',
  403: 'Not allowed.',
  404: 'Not found.',
  409: 'The request conflicts with the state of the server.',
  429: 'Too many requests: the server is slowing this browser down. Try again in a minute.',
  500: 'The server failed to answer (internal error).',
  502: 'The vehicle sends encrypted (paranoid) records, which the dashboard cannot show.',
  503: 'The server is busy. Try again.',
  504: 'No answer in time.',
};

type Sentence = (status: number, detail: string) => string;

/** Sentences per code of the catalogue, and `NETWORK`; `detail` is the server's message without its catalogue prefix. */
const CODE_TEXT: Readonly<Partial<Record<ErrorCode | 'NETWORK', Sentence>>> = {
  // the command API (src/http/command/)
  VTS_ERR_NOT_CONNECTED: () => 'The car is not connected.',
  VTS_ERR_COMMAND_TIMEOUT: () => 'The car did not answer in time.',
  VTS_ERR_QUEUE_FULL: () => 'Too many commands are waiting for this car. Try again when they are done.',
  VTS_ERR_COMMAND_SYNTAX: (_s, d) => withDetail('The command is not valid', d),
  VTS_ERR_UNKNOWN_JOB: () => 'The server no longer knows this command.',
  VTS_ERR_INTERNAL: () => 'The server failed to carry this out (internal error).',
  // web API and API v2
  VTS_ERR_INVALID_INPUT: (_s, d) => withDetail('The server refused the input', d),
  VTS_ERR_UNKNOWN_VEHICLE: () => 'This vehicle is not one of yours, or does not exist.',
  VTS_ERR_AUTH: (s) => (s === 401 ? 'Wrong user name or password, or the session has ended.' : 'The password is wrong, or this sign-in may not do that.'),
  VTS_ERR_CSRF: () => 'The page’s security token is out of date. Reload the page and try again.',
  VTS_ERR_FORBIDDEN: (_s, d) => withDetail('Your sign-in may not do this', d),
  VTS_ERR_ABRP_OFF: () => 'This server does not send data to ABRP: its operator has not set it up (--abrp-api-key).',
  VTS_ERR_LOGIN_THROTTLED: (_s, d) => {
    const wait = /(\d+) s\b/.exec(d)?.[1];
    return `Too many failed sign-ins from here. Try again in ${wait ? `${wait} seconds` : 'a minute'}.`;
  },
  VTS_ERR_BAD_REQUEST: (_s, d) => withDetail('The server could not read the request', d),
  VTS_ERR_STORE_UNAVAILABLE: () => 'The server’s database does not answer just now; what the car sends is kept until it does. Try again in a minute.',
  VTS_ERR_BODY_TOO_LARGE: () => 'The request is too large for the server.',
  VTS_ERR_CONTENT_TYPE: () => 'The server does not accept the request in this form.',
  VTS_ERR_SHUTTING_DOWN: () => 'The server is shutting down. Try again in a moment.',
  VTS_ERR_CHECKS_BUSY: () => 'The server is busy checking passwords. Try again in a moment.',
  VTS_ERR_CLUSTER: () => 'The server is briefly unavailable. Try again in a moment.',
  // the rest of the catalogue (src/errors.ts)
  VTS_ERR_CONFIG: () => 'The server’s configuration is invalid.',
  VTS_ERR_DUPLICATE_USER: () => 'A user with that name exists already.',
  VTS_ERR_UNKNOWN_USER: () => 'There is no such user.',
  VTS_ERR_DUPLICATE_VEHICLE: () => 'A vehicle with that id exists already.',
  VTS_ERR_USER_HAS_VEHICLES: () => 'The user still owns vehicles.',
  VTS_ERR_STORE_CLOSED: () => 'The server is shutting down. Try again in a moment.',
  VTS_ERR_STORE_SCHEMA: () => 'The server’s database was written by a newer vts.',
  VTS_ERR_LISTEN: () => 'A listener of the server could not start.',
  VTS_ERR_TLS: () => 'The server’s TLS certificate or key could not be loaded.',
  VTS_ERR_MQTT: () => 'The MQTT broker failed.',
  VTS_ERR_PUSH_CONFIG: () => 'A push provider of the server is not set up right.',
  VTS_ERR_NOT_FOUND: (_s, d) => withDetail('Not found', d),
  VTS_ERR_IMPORT_SOURCE: () => 'The reference server’s database cannot be read.',
  // accounts: sign-up and recovery (docs/accounts.md)
  VTS_ERR_UNVERIFIED: () => 'This account’s mail address is not verified yet: follow the link in the mail we sent (or ask for a new one below).',
  VTS_ERR_ACCOUNT_DISABLED: () => 'This account is disabled. Ask the server’s operator.',
  VTS_ERR_REGISTRATION_OFF: () => 'This server does not take new accounts. Ask its operator for one.',
  VTS_ERR_INVITE_INVALID: () => 'The invitation code is unknown, used up or expired.',
  VTS_ERR_TOKEN_INVALID: () => 'This link is unknown, was used already or has expired. Ask for a new one.',
  VTS_ERR_MAIL_OFF: () => 'This server cannot send mail, so it cannot do this. Ask its operator.',
  // a second factor (docs/accounts.md)
  VTS_ERR_TOTP_REQUIRED: () => 'Enter the 6-digit code of your authenticator app.',
  VTS_ERR_TOTP_INVALID: () => 'That code is wrong or was used already. Wait for the next code and try again.',
  VTS_ERR_PASSKEY_INVALID: (_s, d) => withDetail('The passkey could not be verified', d),
  VTS_ERR_CONFLICT: (_s, d) => withDetail('Not possible just now', d),
  // the dashboard's own
  NETWORK: () => 'The server cannot be reached. Check the connection and try again.',
};

/** The codes that have a sentence of their own. */
export const KNOWN_CODES: readonly string[] = Object.keys(CODE_TEXT);

/** The catalogue's texts, which VtsError puts before its detail (`invalid command: …`). */
const PREFIXES = ['invalid command: ', 'invalid input: '];

/** A fragment of the server (`command longer than 2000 characters`) as a sentence. */
export function sentence(text: string): string {
  const t = text.trim().replace(/[.\s]+$/, '');
  return t === '' ? '' : `${t.charAt(0).toUpperCase()}${t.slice(1)}.`;
}

function withDetail(lead: string, detail: string): string {
  let d = detail.trim().replace(/[.\s]+$/, '');
  for (const p of PREFIXES) if (d.startsWith(p)) d = d.slice(p.length);
  return d === '' ? `${lead}.` : `${lead}: ${d}.`;
}

/**
 * The sentence for a failed call: `status` (0 when the server was not reached), `code` (`VTS_ERR_…`
 * from a JSON body, else `HTTP_<status>`), `detail` (the body's `message`, or its text).
 */
export function errorSentence(status: number, code: string, detail = ''): string {
  // own keys only: a code from a body such as `constructor` is no sentence of ours
  const known = Object.hasOwn(CODE_TEXT, code) ? CODE_TEXT[code as keyof typeof CODE_TEXT] : undefined;
  if (known) return known(status, detail);
  // an API v2 answer in plain text ("Forbidden"): the status says more
  if (code.startsWith('HTTP_') || detail.trim() === '') return STATUS_TEXT[status] ?? `The server answered with status ${status}.`;
  // a code this dashboard does not know yet: the server's words
  return sentence(detail);
}
