/** Request parameters, validated at the edge: the query string, and for POST the form body. */
import { normaliseAddress } from '../core/address-key.js';
import type { FastifyRequest } from 'fastify';

export type Params = Record<string, string>;

/** The longest parameter value accepted; a longer one makes the request a 400. */
export const MAX_PARAM = 4096;

/** Adds the string parameters of `source`; false when one is longer than MAX_PARAM. */
function collect(into: Params, source: unknown): boolean {
  if (!source || typeof source !== 'object') return true;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (k in into) continue; // the first occurrence wins
    const value = Array.isArray(v) ? v[0] : v;
    if (typeof value !== 'string') continue;
    if (value.length > MAX_PARAM) return false;
    into[k] = value;
  }
  return true;
}

/**
 * Query parameters first; for POST (and PUT) also the urlencoded or multipart form fields.
 * Null when a value is longer than MAX_PARAM (refused, never silently dropped).
 */
export function requestParams(req: FastifyRequest): Params | null {
  const params: Params = Object.create(null) as Params;
  if (!collect(params, req.query)) return null;
  if ((req.method === 'POST' || req.method === 'PUT') && !collect(params, req.body)) return null;
  return params;
}

/** Path segments after `/api`, URL-decoded; null when a segment does not decode. */
export function apiSegments(url: string): string[] | null {
  const path = url.split('?', 1)[0] ?? '';
  const parts = path.split('/').slice(2); // '', 'api', ...
  try {
    return parts.map((p) => (p.includes('%') ? decodeURIComponent(p) : p));
  } catch {
    return null;
  }
}

/**
 * A request's path as logged: without the query (it may hold a password), and an API token in the
 * path (`/api/token/<token>`, also percent-encoded) masked.
 */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  if (path !== '/api' && !path.startsWith('/api/')) return path;
  const segments = apiSegments(path);
  if (segments === null) return '/api/…'; // does not decode: shown as nothing that could be a secret
  return segments[0]?.toLowerCase() === 'token' && segments.length > 1 ? '/api/token/…' : path;
}

export function clientAddress(req: FastifyRequest): string {
  return normaliseAddress(req.ip);
}
