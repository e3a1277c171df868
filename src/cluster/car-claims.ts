/**
 * Car claims: which node the newest login of each vehicle's car is on. `car:<vehicle>` holds
 * `<node> <claim> <login time>`, the claim a number from one counter (`car-claims`); a car that
 * logs in on another node replaces the claim, and the node that held it is told (`taken`) to close
 * its connection. This node's claims go in its presence entries (the newest claim wins when two
 * nodes say they hold a car: src/cluster/presence-replica.ts).
 *
 * A claim expires unless renewed (`CLAIM_TTL_MS`; this node renews its own with its periodic
 * repair) and is freed when the car leaves, so that Redis keeps no key of a car that is gone. A car
 * that logs in while Redis is out of reach has claim 0; it is claimed when the node joins again
 * (`reclaimAll`), as is any claim Redis lost: the newer login keeps the car (a claim this node had
 * in Redis that another node replaced is older; for a claim 0, the login times decide).
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CLAIM_CAR, RECLAIM_CAR, RELEASE_CAR } from './scripts.js';

/** How long a claim lives in Redis unless renewed (its node renews it every 30 s or so). */
export const CLAIM_TTL_MS = 10 * 60_000;

interface Held {
  /** The claim's number; 0 while not recorded in Redis; null while being made. */
  n: number | null;
  /** When the car logged in (ms). */
  at: number;
}

export interface ClaimHooks {
  /** Tells another node that its claim of the car is replaced (`taken`). */
  taken(node: string, vehicleId: string, claim: number): void;
  /** This node's claim of the car changed: its presence entry is written again. */
  changed(vehicleId: string): void;
  /** This node's car is taken by a newer login elsewhere (claim: the one the hub knows). */
  carTaken(vehicleId: string, claim: number): void;
  /** This node's car was claimed again: the hub's claim `from` is `to` now. */
  reclaimed(vehicleId: string, from: number, to: number): void;
}

/** `<node> <claim>…` of a claim in Redis, or null. */
function parseClaim(text: unknown): { node: string; claim: number } | null {
  if (typeof text !== 'string') return null;
  const [node, claim] = text.split(' ');
  return node && claim && /^\d+$/.test(claim) ? { node, claim: Number(claim) } : null;
}

export class CarClaims {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly k: (name: string) => string,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly hooks: ClaimHooks,
  ) {}

  /** The claim of this node's car of the vehicle, for its presence entry (undefined while being made). */
  of(vehicleId: string): number | undefined {
    return this.held.get(vehicleId)?.n ?? undefined;
  }

  /**
   * The vehicle's car logged in here: claims it (`redis` null: Redis is out of reach, claim 0, made
   * when the node joins again). Never rejects: a claim that fails is 0 as well.
   */
  async claim(redis: Redis | null, vehicleId: string): Promise<number> {
    const h: Held = { n: null, at: Date.now() };
    this.held.set(vehicleId, h);
    let n = 0;
    let old: unknown = null;
    if (redis) {
      try {
        [old, n] = (await CLAIM_CAR.run(redis, [this.k(`car:${vehicleId}`), this.k('car-claims')], [this.nodeId, h.at, CLAIM_TTL_MS])) as [unknown, number];
      } catch (err) {
        this.log.debug({ err: (err as Error).message, vehicle: vehicleId }, 'cluster: claiming a car failed (claimed again when Redis is back)');
      }
    }
    if (this.held.get(vehicleId) === h) {
      h.n = n;
      this.hooks.changed(vehicleId);
    }
    const was = parseClaim(old);
    if (was && was.node !== this.nodeId) this.hooks.taken(was.node, vehicleId, was.claim);
    return n;
  }

  /** The car left this node: its claim is freed (if no newer login replaced it). */
  release(redis: Redis | null, vehicleId: string): void {
    const h = this.held.get(vehicleId);
    if (!h) return;
    this.held.delete(vehicleId);
    if (redis && h.n) RELEASE_CAR.run(redis, [this.k(`car:${vehicleId}`)], [this.nodeId, h.n]).catch(() => undefined);
  }

  /**
   * Claims again every car this node holds (it joins again, or renews its claims): keeps and renews
   * a claim Redis has, makes one that Redis lost or never had, and gives up a car whose claim
   * another node replaced meanwhile.
   */
  async reclaimAll(redis: Redis): Promise<void> {
    const all = [...this.held].filter(([, h]) => h.n !== null);
    await Promise.all(all.map(([v, h]) => this.reclaim(redis, v, h)));
  }

  private async reclaim(redis: Redis, vehicleId: string, h: Held): Promise<void> {
    const from = h.n!;
    const [n, replaced] = (await RECLAIM_CAR.run(redis, [this.k(`car:${vehicleId}`), this.k('car-claims')], [this.nodeId, from, h.at, CLAIM_TTL_MS])) as [number, unknown];
    if (this.held.get(vehicleId) !== h || h.n !== from) return; // the car left or logged in again meanwhile
    if (n === -1) {
      this.log.info({ vehicle: vehicleId, claim: replaced }, 'cluster: the car logged in on another node while this one was out of reach');
      return this.hooks.carTaken(vehicleId, from);
    }
    if (n === from) return;
    h.n = n;
    this.hooks.reclaimed(vehicleId, from, n);
    this.hooks.changed(vehicleId);
    const was = parseClaim(replaced);
    if (was && was.node !== this.nodeId) this.hooks.taken(was.node, vehicleId, was.claim);
  }
}
