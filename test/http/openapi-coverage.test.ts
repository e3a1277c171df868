/**
 * The OpenAPI document (src/http/openapi/) describes every route the server answers, and nothing
 * it does not: the routes come from the real sources (fastify's `onRoute` on a built app, the
 * `API_ROUTES` of the `/api` dispatcher, the custom API's functions, `MQAPI_CALLS`), and each
 * described operation is called on a running server and must answer one of its described statuses
 * with a described content type (never the generic 404). Also: the document's structure (OpenAPI
 * 3.1, every `$ref` resolves, path parameters declared), its rights and error styles agree with the
 * dispatcher's, and `/api/openapi.json` and `/api/docs` are served.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { API_ROUTES, apiErrorStyle, callName } from '../../src/http/api-hall.js';
import { MQAPI_CALLS } from '../../src/http/mqapi/routes.js';
import { buildOpenApiDocument, openApiJson } from '../../src/http/openapi/document.js';
import { HTTP_METHODS, type Operation, type OpenApiDocument, type Parameter, type Reference, type Response } from '../../src/http/openapi/types.js';
import { SERVER_VERSION } from '../../src/util/version.js';
import { send } from './helpers.js';
import { injectHarness, type InjectHarness } from './inject.js';
import { startTestServer } from '../support/server.js';

const METRICS_TOKEN = 'openapi-test-metrics-token';
const AUTH = 'username=demo&password=demopass';
const GENERIC_404 = new Set(['Unrecognised API call\n', 'not found\n']);

const doc: OpenApiDocument = buildOpenApiDocument();
let h: InjectHarness;

before(async () => {
  h = await injectHarness({ metricsToken: METRICS_TOKEN });
});
after(async () => {
  await h?.close();
});

interface Described {
  path: string;
  method: string;
  op: Operation;
}

function operations(): Described[] {
  const out: Described[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op) out.push({ path, method, op });
    }
  }
  return out;
}

/** The JSON value `ref` points to in the document (`#/a/b`), or undefined. */
function resolvePointer(ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `a local reference: ${ref}`);
  let at: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !(key in at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

const deref = <T extends object>(x: T | Reference): T => ('$ref' in x ? (resolvePointer(x.$ref) as T) : x);

/** The described path template `url` falls under (`{x}` matches one segment, `:x` matches `{x}`): most literal segments wins. */
function templateOf(url: string, method: string): string | undefined {
  const parts = url.split('?', 1)[0]!.split('/');
  let best: string | undefined;
  let bestLiterals = -1;
  for (const [template, item] of Object.entries(doc.paths)) {
    if (!item[method.toLowerCase() as keyof typeof item]) continue;
    const t = template.split('/');
    if (t.length !== parts.length) continue;
    let literals = 0;
    const fits = t.every((seg, i) => {
      const p = parts[i]!;
      if (/^\{\w+\}$/.test(seg)) return p !== '' && (p.startsWith(':') || !p.includes('*'));
      literals++;
      return seg === p;
    });
    if (fits && literals > bestLiterals) [best, bestLiterals] = [template, literals];
  }
  return best;
}

const byMethod = (method: string) => (method === 'HEAD' ? 'GET' : method);

test('the document is OpenAPI 3.1 in structure: version, operations, responses, tags, security, path parameters', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, SERVER_VERSION);
  assert.ok(doc.info.title.length > 0);
  const tags = new Set(doc.tags.map((t) => t.name));
  const schemes = new Set(Object.keys(doc.components.securitySchemes));
  const ids = new Set<string>();
  const checkSecurity = (reqs: readonly Record<string, string[]>[], where: string) => {
    for (const req of reqs) for (const name of Object.keys(req)) assert.ok(schemes.has(name), `${where}: security scheme ${name}`);
  };
  checkSecurity(doc.security, 'document');
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`;
    assert.match(path, /^\/[^?#]*$/, where);
    assert.ok(op.operationId && !ids.has(op.operationId), `${where}: a unique operationId (${op.operationId})`);
    ids.add(op.operationId);
    assert.ok(op.summary, `${where}: summary`);
    assert.ok(op.tags.length > 0 && op.tags.every((t) => tags.has(t)), `${where}: declared tags`);
    const codes = Object.keys(op.responses);
    assert.ok(codes.length > 0, `${where}: responses`);
    // (DELETE /api/token without a token is always the 404 `Token not specified`)
    if (op.operationId !== 'deleteTokenMissing') assert.ok(codes.some((c) => /^[23]\d\d$/.test(c)), `${where}: a success response`);
    for (const code of codes) {
      assert.match(code, /^[1-5]\d\d$/, `${where}: status ${code}`);
      const r = deref<Response>(op.responses[code]!);
      assert.ok(r && typeof r.description === 'string', `${where} ${code}: a response with a description`);
      for (const [type, media] of Object.entries(r.content ?? {})) assert.ok(media.schema, `${where} ${code} ${type}: a schema`);
    }
    if (op.security) checkSecurity(op.security, where);
    // every {param} of the template is a required path parameter, and every path parameter is in the template
    const params = [...(doc.paths[path]!.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref<Parameter>(p));
    assert.ok(params.every((p) => p && p.name && p.in && p.schema), `${where}: parameters resolve`);
    const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const declared = params.filter((p) => p.in === 'path').map((p) => p.name).sort();
    assert.deepEqual(declared, inTemplate, `${where}: path parameters`);
    assert.ok(params.filter((p) => p.in === 'path').every((p) => p.required === true), `${where}: path parameters are required`);
  }
});

test('every $ref of the document resolves', () => {
  let count = 0;
  const walk = (x: unknown, at: string): void => {
    if (Array.isArray(x)) return x.forEach((v, i) => walk(v, `${at}/${i}`));
    if (x === null || typeof x !== 'object') return;
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref') {
        count++;
        assert.equal(typeof v, 'string', at);
        assert.notEqual(resolvePointer(v as string), undefined, `${at}: ${String(v)} does not resolve`);
      } else walk(v, `${at}/${k}`);
    }
  };
  walk(doc, '#');
  assert.ok(count > 50, `refs checked: ${count}`);
  // and every component schema is used somewhere
  const text = openApiJson();
  for (const name of Object.keys(doc.components.schemas)) assert.ok(text.includes(`"#/components/schemas/${name}"`), `schema ${name} is used`);
});

test('every call of the /api dispatcher (API_ROUTES) is described with its method, rights and error style', () => {
  const described = operations().filter((d) => d.path.startsWith('/api/'));
  for (const [key, route] of API_ROUTES) {
    const [method, fn] = key.split(':') as [string, string];
    const matches = described.filter((d) => d.method === method.toLowerCase() && callName(d.path) === fn);
    assert.ok(matches.length > 0, `${key} is described`);
    for (const d of matches) {
      assert.deepEqual(d.op['x-vts-rights'] ?? [], [...(route.rights ?? [])], `${key} ${d.path}: x-vts-rights`);
      // the dispatcher answers its own errors as text or JSON: the described 400 says the same
      const style = apiErrorStyle(method, d.path.replace(/\{\w+\}/g, 'X'));
      const bad = deref<Response>(d.op.responses['400']!);
      assert.ok(bad?.content?.['text/plain'], `${key} ${d.path}: 400 as text (parameter too long)`);
      if (style === 'json') assert.ok(bad.content['application/json'], `${key} ${d.path}: 400 as JSON too`);
      if (route.public) assert.deepEqual(d.op.security, [], `${key}: no login`);
      else assert.equal(d.op.security, undefined, `${key}: the document's user login`);
    }
  }
  // and conversely: every described /api call is a call of the dispatcher (or the custom API, or this document)
  const own = new Set(['openapi.json', 'docs', 'ovms', 'call']);
  for (const d of described) {
    if (own.has(d.path.split('/')[2]!)) continue;
    assert.ok(API_ROUTES.has(`${d.method.toUpperCase()}:${callName(d.path)}`), `${d.method.toUpperCase()} ${d.path} is a call of API_ROUTES`);
  }
});

/** The functions of the custom API, read from its dispatcher's source (its map is not exported). */
function customFunctions(): string[] {
  const source = readFileSync(new URL('../../src/http/custom-api/dispatch.ts', import.meta.url), 'utf8');
  const block = /const FUNCTIONS[^=]*=\s*new Map\(\[([\s\S]*?)\]\);/.exec(source);
  assert.ok(block, 'the FUNCTIONS map of src/http/custom-api/dispatch.ts');
  const names = [...block[1]!.matchAll(/\['([\w-]+)',/g)].map((m) => m[1]!);
  assert.ok(names.length >= 2, names.join());
  return names;
}

test('the custom API (cmd, csv), /api/call and every /mqapi call are described', async () => {
  const names = customFunctions();
  for (const name of names) {
    for (const method of ['get', 'post'] as const) assert.ok(doc.paths[`/api/ovms/${name}`]?.[method], `${method} /api/ovms/${name}`);
    // the dispatcher knows it: not the 404 of an unknown call
    const r = await h.app.inject({ url: `/api/ovms/${name}` });
    assert.equal(r.statusCode, 400, `/api/ovms/${name} answers (missing parameters)`);
  }
  const unknown = await h.app.inject({ url: '/api/ovms/nosuchfunction' });
  assert.equal(unknown.body, 'Unrecognised API call\n');
  const described = Object.keys(doc.paths).filter((p) => p.startsWith('/api/ovms/')).map((p) => p.slice('/api/ovms/'.length));
  assert.deepEqual(described.sort(), [...names].sort());
  for (const method of ['get', 'post'] as const) {
    const op = doc.paths['/api/call']?.[method];
    assert.ok(op, `${method} /api/call`);
    const fnName = op.parameters?.map((p) => deref<Parameter>(p)).find((p) => p.name === 'fn.name');
    assert.deepEqual([...(fnName?.schema.enum ?? [])].sort(), names.map((n) => `ovms/${n}`).sort(), `${method} /api/call fn.name`);
  }
  const mqapi = Object.keys(doc.paths).filter((p) => p.startsWith('/mqapi/'));
  assert.deepEqual(mqapi.sort(), MQAPI_CALLS.map((c) => `/mqapi/${c}`).sort());
  for (const call of MQAPI_CALLS) assert.deepEqual(Object.keys(doc.paths[`/mqapi/${call}`]!), ['post'], `/mqapi/${call}: POST only`);
});

test("every route fastify registered is described (HEAD as GET, OPTIONS * as the CORS preflight); the others answer only the generic 404", async () => {
  const urls = new Set(h.routes.map((r) => r.url));
  for (const ops of ['/health', '/ready', '/metrics', '/api/openapi.json', '/api/docs']) assert.ok(urls.has(ops), `the server has ${ops}`);
  for (const r of h.routes) {
    const what = `${r.method} ${r.url}`;
    if (r.url === '/api' || r.url === '/api/*') continue; // the dispatcher: API_ROUTES, above
    if (r.method === 'OPTIONS') {
      assert.equal(r.url, '*', what);
      assert.match(doc.info.description, /`OPTIONS` on any path answers a CORS preflight/, 'the preflight is described');
      continue;
    }
    if (templateOf(r.url, byMethod(r.method))) continue;
    // not described: it must be one of the reference's 404s (GET, PUT, DELETE /mqapi/*)
    const res = await h.app.inject({ method: r.method as InjectOptions['method'], url: r.url });
    assert.equal(res.statusCode, 404, `${what} is not described, so it must be a 404`);
    assert.ok(GENERIC_404.has(res.body) || (r.method === 'HEAD' && res.body === ''), `${what}: ${res.body}`);
  }
});

/** A concrete request for a described operation: its path parameters filled, its login and body. */
function requestFor(path: string, method: string, op: Operation): InjectOptions {
  const url = path
    .replace('{vehicleId}', 'DEMO1')
    .replace('{token}', 'f'.repeat(64))
    .replace('{recordType}', 'S')
    .replace('{job}', randomUUID())
    .replace('{appId}', 'no-such-app')
    .replace('{id}', '999999')
    .replace('{file}', 'app.js');
  const opts: InjectOptions = { method: method.toUpperCase() as InjectOptions['method'], url, headers: {} };
  const security = op.security ?? doc.security;
  const schemes = new Set(security.flatMap((s) => Object.keys(s)));
  let query = '';
  if (schemes.has('username')) query = AUTH;
  if (schemes.has('carPassword')) query = 'fn.vehicleid=DEMO1&fn.carpass=NETPASS&fn.cmd=stat&fn.types=S';
  if (path === '/api/call') query += '&fn.name=ovms/csv';
  if (schemes.has('metricsToken')) opts.headers = { authorization: `Bearer ${METRICS_TOKEN}` };
  if (path === '/api/command/{vehicleId}' && method === 'post') query += '&command=stat';
  if (query) opts.url = `${url}?${query}`;
  if (path.startsWith('/mqapi/')) {
    opts.payload = 'username=demo&password=demopass&topic=ovms/demo/DEMO1/metric/v/b/soc&acc=1';
    opts.headers = { 'content-type': 'application/x-www-form-urlencoded' };
  }
  if (path === '/api/session' && method === 'post') {
    opts.payload = { username: 'demo', password: 'demopass' };
  }
  // the live stream never ends: its HEAD answers the stream's status and headers
  if (path === '/api/live/{vehicleId}') opts.method = 'HEAD';
  return opts;
}

test('every described operation answers one of its described statuses, with a described content type (never the generic 404)', async () => {
  for (const { path, method, op } of operations()) {
    const opts = requestFor(path, method, op);
    const what = `${String(opts.method)} ${String(opts.url)}`;
    const r = await h.app.inject(opts);
    assert.ok(!GENERIC_404.has(r.body), `${what}: answered the generic 404`);
    const described = op.responses[String(r.statusCode)];
    assert.ok(described, `${what}: ${r.statusCode} is not described (${Object.keys(op.responses).join(', ')}): ${r.body.slice(0, 200)}`);
    const response = deref<Response>(described);
    const type = String(r.headers['content-type'] ?? '').split(';', 1)[0]!.trim();
    if (response.content && r.body !== '') {
      const types = Object.keys(response.content).map((t) => t.split(';', 1)[0]!.trim());
      assert.ok(types.includes(type), `${what}: content type ${type} is not among ${types.join(', ')}`);
    } else if (!response.content) {
      assert.equal(r.body, '', `${what}: ${r.statusCode} is described without a body`);
    }
  }
});

test('/metrics: 401 without the token, 404 on a server without --metrics-token, as described', async () => {
  const op = doc.paths['/metrics']!.get!;
  const without = await h.app.inject({ url: '/metrics' });
  assert.equal(without.statusCode, 401);
  assert.ok(op.responses['401']);
  const t = await startTestServer({ rateLimit: { burst: 0 } });
  try {
    const r = await send(t.server.ports.http!, '/metrics');
    assert.equal(r.status, 404);
    assert.ok(!GENERIC_404.has(r.body), r.body);
    assert.ok(op.responses['404']);
  } finally {
    await t.close();
  }
});

test('/api/openapi.json serves the document as JSON; /api/docs is a page that renders it from this server', async () => {
  const r = await h.app.inject({ url: '/api/openapi.json' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.body, openApiJson());
  assert.deepEqual(JSON.parse(r.body), JSON.parse(JSON.stringify(doc)));
  const head = await h.app.inject({ method: 'HEAD', url: '/api/openapi.json' });
  assert.equal(head.statusCode, 200);

  const page = await h.app.inject({ url: '/api/docs' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(page.body, /data-url="\/api\/openapi\.json"/);
  assert.doesNotMatch(page.body, /https?:\/\//, 'no CDN: every file from this server');
  // the dashboard's protection: a CSP (what Swagger UI needs, from this server only) and no framing
  assert.equal(page.headers['x-frame-options'], 'DENY');
  const csp = String(page.headers['content-security-policy'] ?? '');
  for (const rule of ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.split('; ').includes(rule), `${rule} in ${csp}`);
  assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/, 'no script but the files of this server');
  const scripts = [...page.body.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(scripts.sort(), ['/api/docs/init.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
  for (const url of scripts) {
    const f = await h.app.inject({ url });
    assert.equal(f.statusCode, 200, url);
    assert.match(String(f.headers['content-type']), url.endsWith('.css') ? /^text\/css/ : /^application\/javascript/, url);
    assert.ok(f.body.length > 100, url);
  }
  const init = await h.app.inject({ url: '/api/docs/init.js' });
  assert.match(init.body, /SwaggerUIBundle\(/);
  assert.match(init.body, /data-url/);
  const bundle = await h.app.inject({ url: '/api/docs/swagger-ui-bundle.js' });
  assert.match(bundle.body.slice(0, 2000), /SwaggerUIBundle|swagger/i);
  // HEAD as GET without the body (the rule of every route: test/http/head.test.ts)
  for (const url of ['/api/openapi.json', '/api/docs', ...scripts]) {
    const g = await h.app.inject({ url });
    const hd = await h.app.inject({ method: 'HEAD', url });
    assert.equal(hd.statusCode, 200, url);
    assert.equal(hd.body, '', url);
    assert.equal(hd.headers['content-type'], g.headers['content-type'], url);
    assert.equal(hd.headers['content-length'], String(g.rawPayload.length), url);
  }
});
