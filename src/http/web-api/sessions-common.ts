/**
 * What the calls of drives, charges, places, battery and stats share (docs/web-api.md "Drives and
 * charges"): the `from`/`to` period of a request, the error answers that name the bad field, JSON
 * in the documented key order (not sorted like the API v2's), and reading every session of a
 * vehicle.
 */
import type { FastifyReply } from 'fastify';
import { batteryReport } from '../../core/drives/battery.js';
import type { StoredCharge, StoredDrive } from '../../store/drives-store.js';
import type { Store } from '../../store/store.js';
import type { ApiCall } from '../api-call.js';
import { sendError, sendJsonText } from '../reply.js';

export const DAY = 86_400;

/** The default period of a list of drives or charges, and the longest one request may cover. */
export const LIST_SPAN = 30 * DAY;
export const MAX_LIST_SPAN = 400 * DAY;

/** Later than any session: the end of "every session" (the year 9999, which both databases hold). */
export const FAR_FUTURE = 253_402_300_799;

export type Range = { from: number; to: number } | { field: 'from' | 'to'; message: string };

function epoch(text: string | undefined): number | null | undefined {
  if (text === undefined || text === '') return undefined;
  return /^\d{1,12}$/.test(text) ? Number(text) : null;
}

/**
 * The period `from`–`to` of a request (epoch seconds, both included): `to` defaults to `now`,
 * `from` to `to` − `span`; `from` after `to`, or more than `max` seconds apart, names the field.
 */
export function requestRange(params: Record<string, string>, now: number, span: number, max: number): Range {
  const to = epoch(params.to);
  if (to === null) return { field: 'to', message: 'to: epoch seconds' };
  const end = to ?? now;
  const from = epoch(params.from);
  if (from === null) return { field: 'from', message: 'from: epoch seconds' };
  const start = from ?? Math.max(0, end - span);
  if (start > end) return { field: 'from', message: 'from: after to' };
  if (end - start > max) return { field: 'to', message: `to: at most ${Math.round(max / DAY)} days after from` };
  return { from: start, to: end };
}

export const badInput = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message });
export const notFound = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_NOT_FOUND', message });

/** A numeric id of a path segment (a drive, a charge, a place), null for anything else (answered 404). */
export function idOf(segment: string | undefined): number | null {
  return segment !== undefined && /^\d{1,12}$/.test(segment) && Number(segment) > 0 ? Number(segment) : null;
}

/**
 * JSON with its keys in the order the value has them (the documented order of these calls), a
 * trailing newline, `Content-Type: application/json`.
 */
export function sendOrdered(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  return sendJsonText(reply, code, `${JSON.stringify(body)}\n`);
}

/** `?format=`: JSON (the default) or CSV; null for anything else. */
export function listFormat(params: Record<string, string>): 'json' | 'csv' | null {
  const f = (params.format ?? '').toLowerCase();
  if (f === '' || f === 'json') return 'json';
  return f === 'csv' ? 'csv' : null;
}

/** A file name of letters, digits, `.`, `_`, `+` and `-` only. */
export const safeFilename = (name: string): string => name.replace(/[^A-Za-z0-9._+-]/g, '_');

/** Every drive (without paths) and every charge (samples only if asked) of the vehicle. */
export async function allSessions(store: Store, vehicleId: string, withSamples = false): Promise<{ drives: StoredDrive[]; charges: StoredCharge[] }> {
  const [drives, charges] = await Promise.all([store.drives.listDrives(vehicleId, 0, FAR_FUTURE, false), store.drives.listCharges(vehicleId, 0, FAR_FUTURE, withSamples)]);
  return { drives, charges };
}

/**
 * The battery's estimated capacity (kWh) for the efficiency of drives that do not know their
 * energy (SOC used × capacity): read only when one of `drives` needs it.
 */
export async function capacityFor(store: Store, vehicleId: string, drives: readonly StoredDrive[]): Promise<number | null> {
  if (!drives.some((d) => d.energyUsed === null)) return null;
  const all = await allSessions(store, vehicleId);
  return batteryReport(all.drives, all.charges).capacity.estimate;
}
