/**
 * The answers of sign-up and recovery (a real server, a real SMTP receiver) validate against
 * their OpenAPI description (src/http/web-api/openapi-account.ts), successes and refusals alike:
 * each status is described, and the body fits its schema (JSON Schema 2020-12, ajv).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { secretHash } from '../../../src/auth/signup.js';
import { buildOpenApiDocument } from '../../../src/http/openapi/document.js';
import type { Operation } from '../../../src/http/openapi/types.js';
import { signupHarness, tokenOf } from '../../support/signup.js';
import type { HttpResponse } from '../helpers.js';

const doc = buildOpenApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc as unknown as Record<string, unknown>, 'doc');
const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function fits(method: 'get' | 'post', path: string, r: HttpResponse): void {
  const op = doc.paths[path]?.[method] as Operation | undefined;
  assert.ok(op, `${method} ${path} is described`);
  const status = String(r.status);
  assert.ok(op.responses[status], `${method} ${path}: ${status} is described (${r.body})`);
  const validate = ajv.compile({ $ref: `doc#/${pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema')}` });
  assert.ok(validate(JSON.parse(r.body)), `${method} ${path} ${status}: ${r.body} ${JSON.stringify(validate.errors)}`);
}

test('every answer of sign-up and recovery fits its description', async (t) => {
  const s = await signupHarness(t, { registration: 'invite' });
  fits('get', '/api/account/options', await s.request('/api/account/options'));
  fits('post', '/api/account', await s.post('/api/account', { username: 'alice', email: 'alice@example.org', password: 'a good password' }));
  fits('post', '/api/account', await s.post('/api/account', { username: 'bad name', email: 'alice@example.org', password: 'a good password' }));
  await s.t.server.store.signup.addInvite({ codeHash: secretHash('code-1'), usesLeft: 1, expires: null, created: 1 });
  fits('post', '/api/account', await s.post('/api/account', { username: 'alice', email: 'alice@example.org', password: 'a good password', invite: 'code-1' }));
  const token = tokenOf(await s.mail(1), 'verify');
  fits('post', '/api/account/verify', await s.post('/api/account/verify', { token: 'x'.repeat(43) }));
  fits('post', '/api/account/verify', await s.post('/api/account/verify', { token }));
  fits('post', '/api/account/verify/resend', await s.post('/api/account/verify/resend', { email: 'alice@example.org' }));
  fits('post', '/api/account/reset', await s.post('/api/account/reset', { email: 'alice@example.org' }));
  fits('post', '/api/account/reset', await s.post('/api/account/reset', { email: 'not an address' }));
  const reset = tokenOf(await s.mail(2), 'reset');
  fits('post', '/api/account/reset/confirm', await s.post('/api/account/reset/confirm', { token: reset, password: 'short' }));
  fits('post', '/api/account/reset/confirm', await s.post('/api/account/reset/confirm', { token: reset, password: 'a new password' }));

  const off = await signupHarness(t, { registration: 'off', mail: false });
  fits('post', '/api/account', await off.post('/api/account', { username: 'bob', email: 'bob@example.org', password: 'a good password' }));
  fits('post', '/api/account/reset', await off.post('/api/account/reset', { email: 'bob@example.org' }));
});
