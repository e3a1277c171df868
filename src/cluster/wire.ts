/**
 * The messages vts nodes exchange over Redis pub/sub (JSON): what each node holds of a vehicle,
 * messages for a vehicle's clients and for its car, requests between nodes and their answers.
 * Every message is checked where it arrives (`parseMessage`); one that is not understood is
 * dropped (a node of another version, a stray publisher).
 *
 * Channels: `<prefix>all` reaches every node; `<prefix>n:<node id>` one node.
 */
import type { LiveEvent, StoredRef } from '../hub/types.js';
import type { NodePresence } from '../hub/cluster/cluster.js';

/** A command job as it travels (without the record sink, which stays with the caller). */
export interface WireJob {
  vehicleId: string;
  kind: 'shell' | 'js' | 'mp';
  caller: string;
  via: string;
  timeoutMs?: number;
  command: { code: number; params: string; records?: number } | null;
  wire?: { code: 'C' | 'E'; data: string };
}

export type WireMessage =
  /** What node `n` holds of vehicle `v` (all zero: nothing). */
  | { t: 'p'; n: string; v: string; p: NodePresence }
  /** Node `n` (re)joined: forget what it held before; its `p` messages follow. */
  | { t: 'reset'; n: string }
  /** Node `n` left (`bye`) or was found dead. */
  | { t: 'gone'; n: string }
  /** Messages for vehicle `v`'s clients on the receiving node. */
  | { t: 'out'; v: string; m: [string, string][]; of?: StoredRef; live?: LiveEvent }
  /** A client's message for vehicle `v`'s car on the receiving node. */
  | { t: 'car'; v: string; c: string; d: string }
  /** The car of `v` logged in elsewhere: the receiving node closes its connection if its claim is `claim`. */
  | { t: 'taken'; v: string; claim: number }
  /** Group data of a car on node `n` (`d` null: gone). */
  | { t: 'g'; n: string; grp: string; v: string; d: string | null }
  /** A broadcast of a shared counter or table (the login throttle, the rate limit, sessions). */
  | { t: 'b'; n: string; topic: string; body: unknown }
  /** Requests to one node, answered on the sender's channel with the same id. */
  | { t: 'sync'; id: string; from: string }
  | { t: 'synced'; id: string }
  | { t: 'cmd'; id: string; from: string; job: WireJob }
  | { t: 'rec'; id: string; c: string; d: string }
  | { t: 'done'; id: string; result: number; output: string; ms: number; transport: string }
  | { t: 'fail'; id: string; code: string; detail: string };

type Check = (m: Record<string, unknown>) => boolean;

const str = (x: unknown): x is string => typeof x === 'string';
const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function presence(x: unknown): boolean {
  return isObject(x) && typeof x.car === 'boolean' && typeof x.v3 === 'boolean' && num(x.apps) && num(x.batches) && (x.claim === undefined || num(x.claim));
}

function pairs(x: unknown): boolean {
  return Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2 && str(p[0]) && str(p[1]));
}

function storedRef(x: unknown): boolean {
  return isObject(x) && str(x.code) && str(x.data) && num(x.time);
}

function liveEvent(x: unknown): boolean {
  if (!isObject(x)) return false;
  if (x.kind === 'record') return str(x.code) && str(x.data) && num(x.time);
  if (x.kind === 'notification') return str(x.type) && str(x.text) && num(x.time);
  return x.kind === 'link';
}

function job(x: unknown): boolean {
  if (!isObject(x)) return false;
  const c = x.command;
  const commandOk = c === null || (isObject(c) && num(c.code) && str(c.params) && (c.records === undefined || num(c.records)));
  const w = x.wire;
  const wireOk = w === undefined || (isObject(w) && (w.code === 'C' || w.code === 'E') && str(w.data));
  return (
    str(x.vehicleId) &&
    (x.kind === 'shell' || x.kind === 'js' || x.kind === 'mp') &&
    str(x.caller) &&
    str(x.via) &&
    (x.timeoutMs === undefined || num(x.timeoutMs)) &&
    commandOk &&
    wireOk
  );
}

const CHECKS: Record<WireMessage['t'], Check> = {
  p: (m) => str(m.n) && str(m.v) && presence(m.p),
  reset: (m) => str(m.n),
  gone: (m) => str(m.n),
  out: (m) => str(m.v) && pairs(m.m) && (m.of === undefined || storedRef(m.of)) && (m.live === undefined || liveEvent(m.live)),
  car: (m) => str(m.v) && str(m.c) && str(m.d),
  taken: (m) => str(m.v) && num(m.claim),
  g: (m) => str(m.n) && str(m.grp) && str(m.v) && (m.d === null || str(m.d)),
  b: (m) => str(m.n) && str(m.topic),
  sync: (m) => str(m.id) && str(m.from),
  synced: (m) => str(m.id),
  cmd: (m) => str(m.id) && str(m.from) && job(m.job),
  rec: (m) => str(m.id) && str(m.c) && str(m.d),
  done: (m) => str(m.id) && num(m.result) && str(m.output) && num(m.ms) && str(m.transport),
  fail: (m) => str(m.id) && str(m.code) && str(m.detail),
};

/** The message in a pub/sub payload, or null when it is not one vts understands. */
export function parseMessage(payload: string): WireMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!isObject(m) || !str(m.t) || !Object.hasOwn(CHECKS, m.t)) return null;
  return CHECKS[m.t as WireMessage['t']](m) ? (m as WireMessage) : null;
}

export const encode = (m: WireMessage): string => JSON.stringify(m);
