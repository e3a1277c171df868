/**
 * Property-based fuzz of the form body parsing as the server does it (src/http/forms.ts, the
 * answers of src/http/request-errors.ts, the parameters of src/http/params.ts): well-formed
 * multipart and urlencoded forms come through field by field, first value first; anything else
 * (garbage, truncated or mutated bodies, odd boundaries, chunked bodies) is answered with 200,
 * 400 or 413, never a 5xx, never left unanswered, never an unhandled rejection. VTS_FUZZ_RUNS
 * scales the cases, VTS_FUZZ_SEED replays a failure (test/support/fuzz.ts).
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { registerFormParsers } from '../../src/http/forms.js';
import { requestParams } from '../../src/http/params.js';
import { requestFailure } from '../../src/http/request-errors.js';
import { fuzzParams } from '../support/fuzz.js';

const BODY_LIMIT = 16 * 1024;
/** Generous: only a request that is never answered fails this way. */
const ANSWER_MS = 15_000;

let app: FastifyInstance;
const failures: unknown[] = [];
const serverErrors: unknown[] = [];
const onRejection = (err: unknown) => failures.push(err);

before(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onRejection);
  app = Fastify({ bodyLimit: BODY_LIMIT });
  app.setErrorHandler((err, _req, reply) => {
    const f = requestFailure(err);
    if (!f.client) serverErrors.push(err);
    return reply.code(f.status).send({ error: f.error, message: f.message });
  });
  await app.register(async (posts) => {
    await registerFormParsers(posts, BODY_LIMIT);
    posts.post('/echo', (req, reply) => reply.send({ body: req.body ?? null, params: requestParams(req) }));
  });
  await app.ready();
});

// one failing property does not fail the next ones
beforeEach(() => {
  failures.length = 0;
  serverErrors.length = 0;
});

after(async () => {
  await app?.close();
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onRejection);
});

async function answer(opts: InjectOptions): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      app.inject(opts),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function checkAnswered(r: LightMyRequestResponse, allowed: readonly number[]): void {
  assert.ok(allowed.includes(r.statusCode), `status ${r.statusCode}: ${r.body}`);
  assert.deepEqual(serverErrors, [], 'no error reached the server-error path');
  assert.deepEqual(failures, [], 'no unhandled rejection or exception');
}

type Fields = [string, string][];

/** What the server makes of the fields: name → value, an array when the name repeats. */
function expected(fields: Fields): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of fields) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

/** Names a browser or curl would send; never one of Object.prototype's (refused: 400). */
const fieldName = fc
  .stringMatching(/^[A-Za-z0-9._-]{1,30}$/)
  .filter((n) => !(n in Object.prototype));
const fieldValue = fc.oneof(
  fc.string({ maxLength: 200, unit: 'grapheme' }),
  fc.string({ maxLength: 50, unit: fc.constantFrom('\r', '\n', '-', '"', '%', '+', '&', '=', ';', ' ', 'a', '\u00e9', '\u{1F697}') }),
  fc.constantFrom('demo', 'DEMO1', '', '2026-01-01 00:00:00', '--', '\r\n'),
);
const fieldsArb: fc.Arbitrary<Fields> = fc.array(fc.tuple(fc.oneof(fieldName, fc.constantFrom('username', 'password', 'a')), fieldValue), { maxLength: 20 });
const boundaryArb = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,60}$/).filter((b) => !b.endsWith(' '));

function multipartBody(fields: Fields, boundary: string, typed: boolean[]): string {
  const parts = fields.map(([k, v], i) => {
    const type = typed[i % Math.max(1, typed.length)] ? 'Content-Type: text/plain; charset=utf-8\r\n' : '';
    return `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n${type}\r\n${v}\r\n`;
  });
  return parts.join('') + `--${boundary}--\r\n`;
}

/** The body as one buffer, or as a chunked stream cut at `cuts`. */
function payloadOf(body: Buffer, cuts: number[] | null): Buffer | Readable {
  if (cuts === null) return body;
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, body.length]) {
    if (p > from) chunks.push(body.subarray(from, p));
    from = Math.max(from, p);
  }
  return Readable.from(chunks);
}

const cutsArb = fc.option(fc.array(fc.nat(), { maxLength: 6 }), { nil: null });

test('well-formed multipart forms come through field by field, first value first', async () => {
  await fc.assert(
    fc.asyncProperty(fieldsArb, boundaryArb, fc.array(fc.boolean(), { maxLength: 4 }), fc.boolean(), cutsArb, async (fields, boundary, typed, quote, cuts) => {
      fc.pre(fields.every(([, v]) => !`\r\n${v}\r\n`.includes(`\r\n--${boundary}`)));
      const body = Buffer.from(multipartBody(fields, boundary, typed));
      // a boundary with characters outside an HTTP token must be quoted
      const quoted = quote || !/^[A-Za-z0-9'+_.-]+$/.test(boundary) ? `"${boundary}"` : boundary;
      const r = await answer({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': `multipart/form-data; boundary=${quoted}` },
        payload: payloadOf(body, cuts),
      });
      checkAnswered(r, [200, 413]);
      if (body.length > BODY_LIMIT) return assert.equal(r.statusCode, 413);
      assert.equal(r.statusCode, 200, r.body);
      const got = JSON.parse(r.body) as { body: unknown; params: Record<string, string> | null };
      assert.deepEqual(got.body, expected(fields));
      if (fields.every(([, v]) => v.length <= 4096)) {
        for (const [k] of fields) assert.equal(got.params?.[k], fields.find(([n]) => n === k)?.[1]);
      }
    }),
    fuzzParams(300),
  );
});

test('well-formed urlencoded forms come through field by field', async () => {
  await fc.assert(
    fc.asyncProperty(fieldsArb, fc.boolean(), cutsArb, async (fields, plus, cuts) => {
      const encode = (s: string) => (plus ? encodeURIComponent(s).replace(/%20/g, '+') : encodeURIComponent(s));
      const body = Buffer.from(fields.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&'));
      const r = await answer({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: payloadOf(body, cuts),
      });
      checkAnswered(r, [200, 413]);
      if (body.length > BODY_LIMIT) return assert.equal(r.statusCode, 413);
      assert.equal(r.statusCode, 200, r.body);
      const got = JSON.parse(r.body) as { body: unknown };
      assert.deepEqual(got.body, fields.length === 0 ? {} : expected(fields));
    }),
    fuzzParams(300),
  );
});

/** A valid body, then broken: cut, bytes replaced, bytes inserted, or a line ending changed. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom('\r\n', '--', '\r\n\r\n', '"', ';', ':', '\u0000', '%') }),
  fc.record({ kind: fc.constant('crlf' as const), at: fc.nat() }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(body: Buffer, m: Mutation): Buffer {
  const at = body.length === 0 ? 0 : m.at % body.length;
  switch (m.kind) {
    case 'cut':
      return body.subarray(0, at);
    case 'flip': {
      const copy = Buffer.from(body);
      if (copy.length) copy[at] = m.byte;
      return copy;
    }
    case 'insert':
      return Buffer.concat([body.subarray(0, at), Buffer.from(m.text), body.subarray(at)]);
    case 'crlf': {
      const text = body.toString('latin1');
      const i = text.indexOf('\r\n', at);
      return i < 0 ? body : Buffer.from(text.slice(0, i) + '\n' + text.slice(i + 2), 'latin1');
    }
  }
}

const contentTypes = (boundary: string) =>
  fc.constantFrom(
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary="${boundary}"`,
    `multipart/form-data;boundary=${boundary};charset=utf-8`,
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary="',
    `multipart/form-data; boundary=${boundary}x`,
    `Multipart/Form-Data; BOUNDARY=${boundary}`,
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=latin1',
  );

test('broken, truncated and garbage form bodies: 200, 400 or 413, always answered', async () => {
  const arb = fc
    .tuple(fieldsArb, boundaryArb, fc.array(mutation, { maxLength: 3 }), fc.uint8Array({ maxLength: 300 }), fc.boolean(), cutsArb)
    .chain(([fields, boundary, mutations, garbage, useGarbage, cuts]) =>
      contentTypes(boundary).map((type) => ({ fields, boundary, mutations, garbage, useGarbage, cuts, type })),
    );
  await fc.assert(
    fc.asyncProperty(arb, async ({ fields, boundary, mutations, garbage, useGarbage, cuts, type }) => {
      let body: Buffer = useGarbage ? Buffer.from(garbage) : Buffer.from(multipartBody(fields, boundary, [false]));
      for (const m of mutations) body = mutate(body, m);
      const r = await answer({ method: 'POST', url: '/echo', headers: { 'content-type': type }, payload: payloadOf(body, cuts) });
      checkAnswered(r, [200, 400, 413]);
    }),
    fuzzParams(600),
  );
});

test('form bodies larger than the limit are a 413, declared or chunked', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 3 }), fc.boolean(), fc.boolean(), async (size, multipart, chunked) => {
      const boundary = 'b0undary';
      const body = multipart
        ? Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n${'x'.repeat(size)}\r\n--${boundary}--\r\n`)
        : Buffer.from(`a=${'x'.repeat(size)}`);
      const type = multipart ? `multipart/form-data; boundary=${boundary}` : 'application/x-www-form-urlencoded';
      const r = await answer({ method: 'POST', url: '/echo', headers: { 'content-type': type }, payload: payloadOf(body, chunked ? [size >> 1] : null) });
      checkAnswered(r, [413]);
    }),
    fuzzParams(40),
  );
});
