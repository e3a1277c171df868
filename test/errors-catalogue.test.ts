/**
 * The error catalogue (src/errors.ts) is the one place a code is described: every code the server
 * or the dashboard names has an entry, each entry is complete, and the answers that carry a code
 * (the command outcomes, the request failures, the OpenAPI document) agree with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CATALOGUE, commandFailure, ERRORS, httpStatus, isErrorCode, VtsError, type ErrorCode, type ErrorEntry } from '../src/errors.js';
import { requestFailure } from '../src/http/request-errors.js';
import { buildOpenApiDocument } from '../src/http/openapi/document.js';

const root = new URL('..', import.meta.url).pathname;

/** Every `VTS_ERR_…` named in the source of the server and the dashboard, with where. */
function namedCodes(): Map<string, string[]> {
  const codes = new Map<string, string[]>();
  for (const dir of ['src', 'web/src']) {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
      if (!e.isFile() || !/\.(ts|tsx|js|mjs)$/.test(e.name)) continue;
      const file = join(e.parentPath, e.name);
      for (const m of readFileSync(file, 'utf8').matchAll(/\bVTS_ERR_[A-Z0-9_]+/g)) {
        const where = codes.get(m[0]) ?? [];
        where.push(relative(root, file));
        codes.set(m[0], where);
      }
    }
  }
  return codes;
}

test('every VTS_ERR_ code the server or the dashboard names has an entry in the catalogue', () => {
  const named = namedCodes();
  // the scan does find codes (in the dispatcher, the command API, the dashboard)
  for (const code of ['VTS_ERR_AUTH', 'VTS_ERR_CSRF', 'VTS_ERR_INTERNAL', 'VTS_ERR_UNKNOWN_JOB', 'VTS_ERR_NOT_CONNECTED']) assert.ok(named.has(code), code);
  const missing = [...named].filter(([code]) => !isErrorCode(code)).map(([code, where]) => `${code} (${[...new Set(where)].join(', ')})`);
  assert.deepEqual(missing, [], `codes used without an entry in src/errors.ts: ${missing.join('; ')}`);
});

test('each entry has an HTTP status and a message; command outcomes have an audit label', () => {
  const audits = new Set<string>();
  const mps = new Set<string>();
  for (const [code, e] of Object.entries(CATALOGUE) as [ErrorCode, ErrorEntry][]) {
    assert.match(code, /^VTS_ERR_[A-Z0-9_]+$/);
    assert.ok(Number.isInteger(e.status) && e.status >= 400 && e.status <= 599, `${code}: status ${e.status}`);
    assert.equal(httpStatus(code), e.status);
    assert.ok(typeof e.message === 'string' && e.message.trim() !== '', `${code}: a message`);
    assert.equal(e.message, e.message.trim(), `${code}: no spaces around the message`);
    assert.doesNotMatch(e.message, /[.:]$/, `${code}: the message is a fragment that a detail follows`);
    assert.equal(ERRORS[code], e.message);
    if (e.mp !== undefined) {
      assert.ok(e.audit !== undefined, `${code}: an MP text belongs to a command outcome, which has an audit label`);
      assert.match(e.mp, /^[A-Z][^\n,]*$/, `${code}: the MP text is one field of a c record`);
      assert.ok(!mps.has(e.mp), `${code}: MP text "${e.mp}" is another code's`);
      mps.add(e.mp);
    }
    if (e.audit !== undefined) {
      assert.match(e.audit, /^[a-z-]+$/, `${code}: audit label`);
      assert.ok(!audits.has(e.audit), `${code}: audit label "${e.audit}" is another code's`);
      audits.add(e.audit);
    }
  }
  assert.ok(CATALOGUE.VTS_ERR_INTERNAL.mp && CATALOGUE.VTS_ERR_INTERNAL.audit, 'the fallback of a command failure is complete');
});

test('a failed command answers with its outcome, any other failure as the server error', () => {
  const cases: [unknown, { code: string; status: number; mp: string; audit: string }][] = [
    [new VtsError('VTS_ERR_COMMAND_SYNTAX', 'x'), { code: 'VTS_ERR_COMMAND_SYNTAX', status: 400, mp: 'Server error', audit: 'invalid' }],
    [new VtsError('VTS_ERR_NOT_CONNECTED', 'X'), { code: 'VTS_ERR_NOT_CONNECTED', status: 409, mp: 'Vehicle not connected', audit: 'not-connected' }],
    [new VtsError('VTS_ERR_QUEUE_FULL'), { code: 'VTS_ERR_QUEUE_FULL', status: 503, mp: 'Too many commands waiting', audit: 'queue-full' }],
    [new VtsError('VTS_ERR_SHUTTING_DOWN'), { code: 'VTS_ERR_SHUTTING_DOWN', status: 503, mp: 'Server shutting down', audit: 'shutting-down' }],
    [new VtsError('VTS_ERR_COMMAND_TIMEOUT'), { code: 'VTS_ERR_COMMAND_TIMEOUT', status: 504, mp: 'Command timed out', audit: 'timeout' }],
    // not a command's own outcome: the server's failure, under its own code
    [new VtsError('VTS_ERR_CLUSTER', 'node b did not answer in time'), { code: 'VTS_ERR_CLUSTER', status: 500, mp: 'Server error', audit: 'error' }],
    [new VtsError('VTS_ERR_STORE_UNAVAILABLE'), { code: 'VTS_ERR_STORE_UNAVAILABLE', status: 500, mp: 'Server error', audit: 'error' }],
    [new Error('secret words'), { code: 'VTS_ERR_INTERNAL', status: 500, mp: 'Server error', audit: 'error' }],
  ];
  for (const [err, want] of cases) {
    const f = commandFailure(err);
    assert.deepEqual({ code: f.code, status: f.status, mp: f.mp, audit: f.audit }, want, String(err));
    assert.equal(f.message, err instanceof VtsError ? err.message : 'internal error');
  }
});

test('a request failure keeps the catalogue status of the request’s own failures only', () => {
  assert.deepEqual(requestFailure(new VtsError('VTS_ERR_BAD_REQUEST', 'Malformed URL', { whole: true })), {
    status: 400,
    error: 'VTS_ERR_BAD_REQUEST',
    message: 'Malformed URL',
    client: true,
  });
  assert.equal(requestFailure(new VtsError('VTS_ERR_BODY_TOO_LARGE', 'x')).status, 413);
  assert.equal(requestFailure({ statusCode: 413 }).message, 'Request body too large');
  assert.equal(requestFailure({ statusCode: 415 }).message, 'Unsupported content type');
  for (const code of ['VTS_ERR_CLUSTER', 'VTS_ERR_STORE_UNAVAILABLE'] as const) {
    assert.deepEqual(requestFailure(new VtsError(code)), { status: 503, error: code, message: 'Service unavailable for a moment: try again', client: true });
  }
  // any other error that escapes a handler is the server's failure
  for (const err of [new VtsError('VTS_ERR_UNKNOWN_USER', 'owner id 3'), new VtsError('VTS_ERR_NOT_CONNECTED'), new Error('x')]) {
    assert.deepEqual(requestFailure(err), { status: 500, error: 'VTS_ERR_INTERNAL', message: 'Internal error', client: false });
  }
});

type Json = Record<string, unknown>;

/** The `error` codes of each JSON error answer in the OpenAPI document: `status → codes`, per operation. */
function documentedCodes(): { where: string; status: number; codes: string[] }[] {
  const doc = buildOpenApiDocument() as unknown as Json;
  const components = (doc.components as Json).responses as Json;
  const out: { where: string; status: number; codes: string[] }[] = [];
  const resolve = (r: Json): Json => (typeof r.$ref === 'string' ? (components[r.$ref.split('/').pop()!] as Json) : r);
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const responses = (op as Json).responses as Json | undefined;
      for (const [status, r] of Object.entries(responses ?? {})) {
        const schema = ((resolve(r as Json).content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;
        const codes = ((schema?.properties as Json | undefined)?.error as Json | undefined)?.enum;
        if (Array.isArray(codes)) out.push({ where: `${method.toUpperCase()} ${path}`, status: Number(status), codes: codes as string[] });
      }
    }
  }
  return out;
}

test('the OpenAPI document lists each code under its catalogue status', () => {
  const documented = documentedCodes();
  assert.ok(documented.length > 10, 'the document has JSON error answers');
  for (const { where, status, codes } of documented) {
    for (const code of codes) {
      assert.ok(isErrorCode(code), `${where} ${status}: ${code} is in the catalogue`);
      // VTS_ERR_AUTH: 401 without a login, 403 for a login that may not do this
      if (code === 'VTS_ERR_AUTH' && status === 403) continue;
      // a command that fails for a reason not its own: 500 (src/errors.ts commandFailure)
      if (status === 500) continue;
      assert.equal(status, httpStatus(code), `${where}: ${code} documented under ${status}`);
    }
  }
});
