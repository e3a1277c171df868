/** The dashboard's sentences for API errors (web/src/error-text.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../src/errors.js';
import { errorSentence, KNOWN_CODES, sentence, STATUS_TEXT } from '../../web/src/error-text.js';

/** Every `VTS_ERR_…` the HTTP API names in its source (the codes that can reach the browser). */
function httpCodes(dir = new URL('../../src/http/', import.meta.url).pathname): Set<string> {
  const codes = new Set<string>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.ts')) continue;
    for (const m of readFileSync(join(e.parentPath, e.name), 'utf8').matchAll(/VTS_ERR_[A-Z_]+/g)) codes.add(m[0]);
  }
  return codes;
}

test('every code the HTTP API answers with has a sentence of its own', () => {
  const codes = httpCodes();
  assert.ok(codes.has('VTS_ERR_NOT_CONNECTED') && codes.has('VTS_ERR_CSRF'), [...codes].join());
  for (const code of codes) {
    assert.ok(KNOWN_CODES.includes(code), `${code} has no sentence in web/src/error-text.ts`);
    const text = errorSentence(500, code, 'some detail');
    assert.match(text, /^[A-Z].*\.$/, `${code}: "${text}" is a sentence`);
    assert.doesNotMatch(text, /VTS_ERR|HTTP_/, `${code}: no code in "${text}"`);
  }
});

test('every code of the catalogue reads as a sentence (the command API passes any through, as a 500)', () => {
  for (const [code, text] of Object.entries(ERRORS)) {
    const said = errorSentence(500, code, text);
    assert.match(said, /^[A-Z].*\.$/, `${code}: "${said}" is a sentence`);
    assert.doesNotMatch(said, /VTS_ERR|HTTP_/, `${code}: no code in "${said}"`);
  }
});

test('the command API errors read as sentences', () => {
  assert.equal(errorSentence(409, 'VTS_ERR_NOT_CONNECTED', 'vehicle not connected: DEMO1'), 'The car is not connected.');
  assert.equal(errorSentence(504, 'VTS_ERR_COMMAND_TIMEOUT', 'the vehicle did not answer in time'), 'The car did not answer in time.');
  assert.match(errorSentence(503, 'VTS_ERR_QUEUE_FULL', 'too many jobs'), /^Too many commands are waiting/);
  // the detail of a syntax error says what is wrong, without the catalogue's prefix
  assert.equal(
    errorSentence(400, 'VTS_ERR_COMMAND_SYNTAX', 'invalid command: command longer than 2000 characters'),
    'The command is not valid: command longer than 2000 characters.',
  );
  assert.equal(errorSentence(400, 'VTS_ERR_INVALID_INPUT', 'type: shell, js or mp'), 'The server refused the input: type: shell, js or mp.');
  assert.equal(errorSentence(400, 'VTS_ERR_INVALID_INPUT'), 'The server refused the input.');
  assert.equal(errorSentence(403, 'VTS_ERR_UNKNOWN_VEHICLE', 'no such vehicle among yours'), 'This vehicle is not one of yours, or does not exist.');
});

test('fallbacks: plain-text API v2 answers by their status, unknown codes in the server’s words', () => {
  assert.equal(errorSentence(403, 'HTTP_403', 'Forbidden'), STATUS_TEXT[403]);
  assert.equal(errorSentence(429, 'HTTP_429', ''), STATUS_TEXT[429]);
  assert.equal(errorSentence(418, 'HTTP_418', 'I am a teapot'), 'The server answered with status 418.');
  assert.equal(errorSentence(500, 'VTS_ERR_SOMETHING_NEW', 'the flux capacitor failed'), 'The flux capacitor failed.');
  assert.equal(errorSentence(409, 'VTS_ERR_SOMETHING_NEW', ''), STATUS_TEXT[409]);
  assert.equal(errorSentence(0, 'NETWORK'), 'The server cannot be reached. Check the connection and try again.');
  assert.equal(sentence('  no such thing. '), 'No such thing.');
  assert.equal(sentence(''), '');
});

test('a refused sign-in says when to try again', () => {
  assert.equal(
    errorSentence(429, 'VTS_ERR_LOGIN_THROTTLED', 'too many failed logins: try again in 30 s'),
    'Too many failed sign-ins from here. Try again in 30 seconds.',
  );
});
