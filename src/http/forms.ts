/**
 * The form bodies of POST and PUT: `application/x-www-form-urlencoded` (@fastify/formbody) and
 * `multipart/form-data` (@fastify/multipart, fields only). Either becomes `req.body`: field name →
 * value, an array of values when a name repeats (as the query string does); src/http/params.ts
 * takes the first. A multipart body that does not parse (not multipart, truncated, no boundary, a
 * file part) is the client's error: 400 `VTS_ERR_BAD_REQUEST`; more than the body limit or too many
 * fields: 413 `VTS_ERR_BODY_TOO_LARGE` (src/http/request-errors.ts says how each answers).
 */
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { VtsError } from '../errors.js';
import { MAX_PARAM } from './params.js';

/** A value longer than MAX_PARAM is kept one character too long, so that params.ts refuses it. */
const LIMITS = { fieldNameSize: 100, fieldSize: MAX_PARAM + 1, fields: 20, files: 0, fileSize: 0, parts: 20, headerPairs: 20 };

export type FormFields = Record<string, string | string[]>;

/** Registers both parsers on `app` (a POST/PUT context: the multipart plugin hooks every request of it). */
export async function registerFormParsers(app: FastifyInstance, bodyLimit: number): Promise<void> {
  await app.register(formbody, { bodyLimit });
  await app.register(multipart, { limits: LIMITS });
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart()) req.body = await multipartFields(req, bodyLimit);
  });
}

const malformed = (what: string, cause?: unknown) => new VtsError('VTS_ERR_BAD_REQUEST', what, { whole: true, cause });
const tooLarge = (what: string, cause?: unknown) => new VtsError('VTS_ERR_BODY_TOO_LARGE', what, { whole: true, cause });

/** The error of a multipart body that could not be read: always the client's (the parser's error is its cause). */
function multipartFailure(err: unknown): VtsError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return tooLarge(`Too many form fields (${LIMITS.fields} at most)`, err);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_REQ_FILE_TOO_LARGE') return malformed('Malformed multipart body: files are not accepted', err);
  if (code === 'FST_PROTO_VIOLATION') return malformed('Malformed multipart body: reserved field name', err);
  return malformed('Malformed multipart body', err);
}

async function multipartFields(req: FastifyRequest, bodyLimit: number): Promise<FormFields> {
  const tooBig = () => tooLarge('Request body too large');
  if (Number(req.headers['content-length']) > bodyLimit) throw tooBig();
  // a chunked body has no declared length: it is counted, and refused once over the limit
  let received = 0;
  let refuse: (err: Error) => void = () => undefined;
  const overLimit = new Promise<never>((_, reject) => (refuse = reject));
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received <= bodyLimit) return;
    req.raw.off('data', count);
    req.raw.unpipe(); // the parser reads no more: the reading below is left behind, unsettled
    refuse(tooBig());
  };
  req.raw.on('data', count);
  const reading = readFields(req);
  reading.catch(() => undefined); // when the limit wins the race, its end does not matter
  try {
    return await Promise.race([reading, overLimit]);
  } finally {
    req.raw.off('data', count);
  }
}

async function readFields(req: FastifyRequest): Promise<FormFields> {
  const fields: FormFields = Object.create(null) as FormFields;
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'field') {
        part.file.resume();
        throw malformed('Malformed multipart body: files are not accepted');
      }
      // a part declared as JSON arrives parsed: a form field is its text
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value) ?? '';
      const name = part.fieldname;
      const had = fields[name];
      fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
  } catch (err) {
    throw err instanceof VtsError ? err : multipartFailure(err);
  }
  return fields;
}
