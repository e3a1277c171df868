/**
 * Every vehicle's state on the embedded broker (docs/home-assistant.md), retained:
 * - a v2 car's records as the OVMS v3 metric topics a v3 module would publish
 *   (`<prefix>metric/v/b/soc`, …; src/core/metrics/v3-metrics.ts), so tools made for v3 work with
 *   it; a v3 car publishes its own and is not mirrored;
 * - for every car, the topics vts computes (`<prefix>vts/…`, VTS_TOPICS): availability, doors,
 *   location, last seen (at most once a minute), lifetime charged energy.
 * `<prefix>` is `ovms/<owner>/<vehicle>/` (a v3 module's own spelling when the bridge knows it).
 *
 * It hears the car-data observers (on the node that received the records, so once in a cluster)
 * and publishes once per `flushMs` what changed since: a car sending many records a second costs
 * one comparison per record type and second, and only changed metrics are published.
 *
 * A flush of many vehicles (at start, every stored vehicle's whole state: tens of thousands of
 * topics) goes out `PUBLISHES_PER_TURN` topics per event-loop turn. Given all at once, aedes queues
 * what exceeds its 100 messages in flight in an array it shifts one by one, which once the array is
 * large costs time in proportion to its length for each message: 80,000 topics of 1,000 vehicles
 * took the event loop 6 s (bench/README.md, `ha`). aedes delivers a message in the next turn, so a
 * flush under its concurrency never builds that queue, and the other work runs between the turns.
 */
import type { Logger } from 'pino';
import { chargingOf, doorsOpen, identityOf, locationOf } from '../core/ha/derived.js';
import { OFFLINE, ONLINE, VTS_TOPICS } from '../core/ha/discovery.js';
import { distanceUnitOf, metricsOfRecord } from '../core/metrics/v3-metrics.js';
import type { CarDataEvent, Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';

/** What the discovery of a vehicle depends on, as the mirror learns it. */
export interface VehicleFacts {
  ownerName: string;
  prefix: string;
  distanceUnit: 'K' | 'M';
  firmware?: string;
  vin?: string;
  vehicleType?: string;
}

export interface StateMirrorDeps {
  hub: Hub;
  store: Store;
  log: Logger;
  /** Publishes on the broker (retained unless told). */
  publish(topic: string, payload: string, retain?: boolean): void;
  /** Mirror v2 cars' records as v3 metrics (else only the vts topics). */
  metrics: boolean;
  /** The prefix of a vehicle's topics: the v3 module's own when the bridge knows it. */
  prefixOf(vehicleId: string, ownerName: string): string;
  /** Hears when what the discovery shows of a vehicle changed (or is first known). */
  onFacts?(vehicleId: string, facts: VehicleFacts): void;
  flushMs?: number;
  /** Seconds after a charge ends before the lifetime energy is read again (the recorder closes it). */
  energyDelayS?: number;
}

interface MirroredVehicle {
  vehicleId: string;
  ownerId: number;
  /** Null while the owner's name is read. */
  facts: VehicleFacts | null;
  /** The records published, by code. */
  sent: Map<string, string>;
  /** Records heard since the last flush, by code. */
  latest: Map<string, string>;
  v3: boolean;
  lastSeen: number;
  lastSeenSent: number;
  /** The vts topics' payloads published, by topic suffix. */
  derived: Map<string, string>;
  charging: boolean | null;
  energyTotal: number;
}

const LAST_SEEN_EVERY_S = 60;

/** Topics published per event-loop turn at most (checked between vehicles), under aedes's 100 in flight. */
export const PUBLISHES_PER_TURN = 64;

export class StateMirror {
  private readonly vehicles = new Map<string, MirroredVehicle>();
  private readonly dirty = new Set<MirroredVehicle>();
  private readonly ownerNames = new Map<number, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly flusher: NodeJS.Timeout;
  private closed = false;
  /** The vehicles of the flush going out (from `next`), over several event-loop turns. */
  private outgoing: MirroredVehicle[] = [];
  private next = 0;
  private resume: NodeJS.Immediate | null = null;
  /** Topics published in this turn (counted by `publish`). */
  private published = 0;

  constructor(private readonly deps: StateMirrorDeps) {
    this.flusher = setInterval(() => this.flush(), deps.flushMs ?? 1000);
    this.flusher.unref();
  }

  /** The observer to register with `hub.onCarData`. */
  observer(): (event: CarDataEvent) => void {
    return (event) => {
      if (event.historical || this.closed) return;
      const v = this.vehicle(event.vehicleId, event.ownerId);
      v.latest.set(event.code, event.data);
      v.v3 = event.source === 'mqtt';
      if (event.time > v.lastSeen) v.lastSeen = event.time;
      this.dirty.add(v);
    };
  }

  /** A link of the vehicle came or went (on this node): its availability is published again if it changed. */
  linkChanged(vehicleId: string, ownerId: number): void {
    if (this.closed) return;
    const v = this.vehicle(vehicleId, ownerId);
    this.dirty.add(v);
  }

  /** Publishes the stored state of a vehicle (at start, the broker's retained messages are gone). */
  prime(vehicleId: string, ownerId: number, messages: readonly { code: string; data: string; time: number; paranoid: boolean }[]): void {
    if (this.closed) return;
    const v = this.vehicle(vehicleId, ownerId);
    for (const m of messages) {
      if (m.paranoid || !/^[SDLFWY]$/.test(m.code)) continue;
      if (!v.latest.has(m.code)) v.latest.set(m.code, m.data);
      if (m.time > v.lastSeen) v.lastSeen = m.time;
    }
    this.dirty.add(v);
  }

  /** What the mirror knows of a vehicle's discovery facts (null: not yet). */
  facts(vehicleId: string): VehicleFacts | null {
    return this.vehicles.get(vehicleId)?.facts ?? null;
  }

  /** Forgets a vehicle (removed, or now someone else's): returns the prefix it was published under. */
  forget(vehicleId: string): string | null {
    const v = this.vehicles.get(vehicleId);
    if (!v) return null;
    this.vehicles.delete(vehicleId);
    this.dirty.delete(v);
    return v.facts?.prefix ?? null;
  }

  /** A renamed owner: its vehicles are published under the new name from now on. */
  forgetOwnerName(ownerId: number): void {
    this.ownerNames.delete(ownerId);
  }

  private vehicle(vehicleId: string, ownerId: number): MirroredVehicle {
    let v = this.vehicles.get(vehicleId);
    if (v && v.ownerId !== ownerId) {
      this.forget(vehicleId);
      v = undefined;
    }
    if (!v) {
      v = { vehicleId, ownerId, facts: null, sent: new Map(), latest: new Map(), v3: false, lastSeen: 0, lastSeenSent: 0, derived: new Map(), charging: null, energyTotal: 0 };
      this.vehicles.set(vehicleId, v);
      void this.load(v);
    }
    return v;
  }

  /** Reads the owner's name and the lifetime energy, then publishes what waited. */
  private async load(v: MirroredVehicle): Promise<void> {
    try {
      let name = this.ownerNames.get(v.ownerId);
      if (name === undefined) {
        name = (await this.deps.store.getOwnerById(v.ownerId))?.name;
        if (name !== undefined) this.ownerNames.set(v.ownerId, name);
      }
      if (name === undefined || /[+#/]/.test(name) || this.vehicles.get(v.vehicleId) !== v) return;
      v.facts = { ownerName: name, prefix: this.deps.prefixOf(v.vehicleId, name), distanceUnit: 'K' };
      await this.readEnergy(v);
      this.dirty.add(v);
    } catch (err) {
      this.deps.log.warn({ err, vehicle: v.vehicleId }, 'MQTT state: reading the vehicle failed');
      if (this.vehicles.get(v.vehicleId) === v) this.vehicles.delete(v.vehicleId);
    }
  }

  private async readEnergy(v: MirroredVehicle): Promise<void> {
    const charges = await this.deps.store.drives.listCharges(v.vehicleId, 0, this.deps.hub.seconds() + 86400);
    let total = 0;
    for (const c of charges) total += c.energyAdded ?? 0;
    // never decreasing (HA's total_increasing would read a decrease as a meter reset)
    if (total > v.energyTotal) v.energyTotal = total;
  }

  /**
   * Publishes what changed of the dirty vehicles, `PUBLISHES_PER_TURN` topics per event-loop turn
   * (all at once with `unpaced`). While an earlier flush is still going out, the vehicles dirty
   * since wait for the next one.
   */
  flush(unpaced = false): void {
    if (this.next >= this.outgoing.length) {
      if (this.dirty.size === 0) return;
      this.outgoing = [...this.dirty];
      this.next = 0;
      this.dirty.clear();
    } else if (!unpaced) {
      return;
    }
    this.publishOutgoing(unpaced ? Infinity : PUBLISHES_PER_TURN);
  }

  private publishOutgoing(budget: number): void {
    this.resume = null;
    this.published = 0;
    while (this.next < this.outgoing.length && this.published < budget) {
      const v = this.outgoing[this.next++]!;
      // published once loaded; not at all once forgotten (removed, another owner's) meanwhile
      if (!v.facts || this.vehicles.get(v.vehicleId) !== v) continue;
      try {
        this.publishVehicle(v, v.facts);
      } catch (err) {
        this.deps.log.error({ err, vehicle: v.vehicleId }, 'MQTT state: publishing failed');
      }
    }
    if (this.next < this.outgoing.length) {
      this.resume = setImmediate(() => this.publishOutgoing(PUBLISHES_PER_TURN));
    } else {
      this.outgoing = [];
      this.next = 0;
    }
  }

  private readonly publish = (topic: string, payload: string): void => {
    this.published++;
    this.deps.publish(topic, payload);
  };

  private publishVehicle(v: MirroredVehicle, facts: VehicleFacts): void {
    const { publish } = this;
    const prefix = facts.prefix;
    let factsChanged = v.sent.size === 0 && v.derived.size === 0;
    const s = v.latest.get('S');
    if (s !== undefined) {
      const unit = distanceUnitOf(s);
      if (unit !== facts.distanceUnit) {
        facts.distanceUnit = unit;
        factsChanged = true;
        // the records' distances read differently now: every metric again
        for (const [code, data] of v.sent) if (!v.latest.has(code)) v.latest.set(code, data);
        v.sent.clear();
      }
    }
    const mirror = this.deps.metrics && !v.v3;
    // a metric two records carry is taken from the one that has it first hand (D's bits, Y's tyres)
    const ctx = { distanceUnit: facts.distanceUnit, hasD: v.sent.has('D') || v.latest.has('D'), hasY: v.sent.has('Y') || v.latest.has('Y') };
    for (const [code, data] of v.latest) {
      const before = v.sent.get(code);
      if (before === data) continue;
      if (mirror) {
        const old = before === undefined ? null : new Map(metricsOfRecord(code, before, ctx));
        for (const [name, payload] of metricsOfRecord(code, data, ctx)) {
          if (old?.get(name) !== payload) publish(`${prefix}metric/${name.replace(/\./g, '/')}`, payload);
        }
      }
      v.sent.set(code, data);
      if (code === 'D') {
        const open = doorsOpen(data);
        if (open !== null) this.derived(v, VTS_TOPICS.doors, open ? 'yes' : 'no');
      } else if (code === 'L') {
        const at = locationOf(data);
        if (at) this.derived(v, VTS_TOPICS.location, JSON.stringify(at));
      } else if (code === 'S') {
        const charging = chargingOf(data);
        if (charging === false && v.charging === true) this.energyLater(v);
        if (charging !== null) v.charging = charging;
      } else if (code === 'F') {
        const id = identityOf(data);
        if (id.firmware !== facts.firmware || id.vin !== facts.vin || id.vehicleType !== facts.vehicleType) {
          Object.assign(facts, { firmware: id.firmware, vin: id.vin, vehicleType: id.vehicleType });
          factsChanged = true;
        }
      }
    }
    v.latest.clear();
    this.derived(v, VTS_TOPICS.availability, this.deps.hub.links.linkKind(v.vehicleId) !== null ? ONLINE : OFFLINE);
    this.derived(v, VTS_TOPICS.energyChargedTotal, String(Math.round(v.energyTotal * 1000) / 1000));
    if (v.lastSeen > 0 && (v.lastSeenSent === 0 || v.lastSeen - v.lastSeenSent >= LAST_SEEN_EVERY_S)) {
      v.lastSeenSent = v.lastSeen;
      publish(`${prefix}${VTS_TOPICS.lastSeen}`, new Date(v.lastSeen * 1000).toISOString());
    }
    if (factsChanged) this.deps.onFacts?.(v.vehicleId, facts);
  }

  private derived(v: MirroredVehicle, suffix: string, payload: string): void {
    if (v.derived.get(suffix) === payload || !v.facts) return;
    v.derived.set(suffix, payload);
    this.publish(`${v.facts.prefix}${suffix}`, payload);
  }

  /** The recorder closes a charge a little after it ends: the lifetime energy is read then. */
  private energyLater(v: MirroredVehicle): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed || this.vehicles.get(v.vehicleId) !== v) return;
      this.readEnergy(v).then(
        () => this.dirty.add(v),
        (err: unknown) => this.deps.log.warn({ err, vehicle: v.vehicleId }, 'MQTT state: reading the charged energy failed'),
      );
    }, (this.deps.energyDelayS ?? 120) * 1000);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    if (this.closed) return;
    if (this.resume) clearImmediate(this.resume);
    this.resume = null;
    this.flush(true); // what is still going out, then what is dirty
    this.flush(true);
    this.closed = true;
    clearInterval(this.flusher);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
