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
 * one comparison per record type and second, and only changed metrics are published. The owner
 * (and so the prefix) is the store's, read when the vehicle is first heard of: the hub's link of a
 * car that stays connected while its vehicle is given to another owner still names the old one.
 * When the car comes online on this node, everything is published again: in a cluster another
 * node may have published since.
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
import { ChargedEnergy } from './charged-energy.js';

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
  /** Clears the retained messages under a prefix the vehicle's topics moved away from. */
  clearPrefix(prefix: string): void;
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

/** A record as the store keeps it. */
type StoredMessage = { code: string; data: string; time: number; paranoid: boolean };

interface MirroredVehicle {
  vehicleId: string;
  /** Null while the vehicle is read from the store, and for a vehicle the store does not have. */
  facts: VehicleFacts | null;
  /** The facts learnt from stored records before the vehicle was read (`facts` once it is). */
  pendingFacts: VehicleFacts;
  /** For a vehicle the store does not have: when to ask again (epoch ms). */
  unknownUntil: number;
  /** The records published, by code. */
  sent: Map<string, string>;
  /** Records heard since the last flush, by code. */
  latest: Map<string, string>;
  /** Its records came over MQTT: a v3 module that publishes its own metrics (never mirrored). */
  v3: boolean;
  lastSeen: number;
  lastSeenSent: number;
  /** The distance unit the published metrics were read with. */
  metricsUnit: 'K' | 'M';
  /** The vts topics' payloads published, by topic suffix. */
  derived: Map<string, string>;
  charging: boolean | null;
  energyTotal: number;
}

const LAST_SEEN_EVERY_S = 60;
/** A vehicle the store does not have is asked for again after this (ms). */
const UNKNOWN_FOR_MS = 60_000;
/** Topics published per event-loop turn at most (checked between vehicles), under aedes's 100 in flight. */
export const PUBLISHES_PER_TURN = 64;

export class StateMirror {
  private readonly vehicles = new Map<string, MirroredVehicle>();
  private readonly dirty = new Set<MirroredVehicle>();
  private readonly energy: ChargedEnergy;
  private flusher: NodeJS.Timeout | null = null;
  private closed = false;
  /** The vehicles of the flush going out (from `next`), over several event-loop turns. */
  private outgoing: MirroredVehicle[] = [];
  private next = 0;
  private resume: NodeJS.Immediate | null = null;
  /** Topics published in this turn (counted by `publish`). */
  private published = 0;

  constructor(private readonly deps: StateMirrorDeps) {
    this.energy = new ChargedEnergy(deps.store, () => deps.hub.seconds(), deps.energyDelayS);
  }

  /** Starts publishing once per `flushMs`. */
  start(): void {
    if (this.flusher || this.closed) return;
    this.flusher = setInterval(() => this.flush(), this.deps.flushMs ?? 1000);
    this.flusher.unref();
  }

  /** The observer to register with `hub.onCarData`. */
  observer(): (event: CarDataEvent) => void {
    return (event) => {
      if (event.historical || this.closed) return;
      const v = this.vehicle(event.vehicleId);
      v.latest.set(event.code, event.data);
      if (event.source === 'mqtt') v.v3 = true;
      if (event.time > v.lastSeen) v.lastSeen = event.time;
      this.dirty.add(v);
    };
  }

  /**
   * A link of the vehicle came or went: its availability is published again if it changed, and
   * everything when its car came online on this node. `ownerId` null: a change on another node of
   * a cluster, of a vehicle this node has no link of; every node then publishes the availability
   * it sees if that changed, so that the last one published, whichever node it comes from, is the
   * cluster's (a node that published `offline` as its car left for another node, before it heard
   * of it there, publishes `online` then; the node that survives a node's death publishes its car
   * `offline`).
   */
  linkChanged(vehicleId: string, ownerId: number | null): void {
    if (this.closed) return;
    const v = ownerId === null ? this.vehicles.get(vehicleId) : this.vehicle(vehicleId);
    if (!v) return;
    const link = this.deps.hub.link(vehicleId);
    if (ownerId !== null && (link?.car || link?.v3)) {
      if (link.v3) v.v3 = true;
      this.republish(v);
    }
    this.dirty.add(v);
  }

  /**
   * Takes the stored state of a vehicle: what the discovery shows, and (but in a cluster, whose
   * retained messages outlive a node) the records to publish: at start the broker's retained
   * messages are gone. A v3 module publishes its own again when it connects.
   */
  prime(vehicleId: string, messages: readonly StoredMessage[]): void {
    if (this.closed) return;
    const v = this.vehicle(vehicleId);
    const publish = !this.deps.hub.cluster.clustered;
    for (const m of messages) {
      if (m.paranoid || !/^[SDLFWY]$/.test(m.code)) continue;
      if (publish && !v.latest.has(m.code)) v.latest.set(m.code, m.data);
      if (m.time > v.lastSeen) v.lastSeen = m.time;
    }
    this.learnFacts(v, messages);
    // a record heard but not yet published is newer than the stored ones: the discovery that
    // follows this priming must not show the unit of an older S for a moment
    const live = (['S', 'F'] as const).flatMap((code) => {
      const data = v.latest.get(code);
      return data === undefined ? [] : [{ code, data, time: v.lastSeen, paranoid: false }];
    });
    this.learnFacts(v, live);
    this.dirty.add(v);
  }

  /**
   * Reads what the discovery shows (unit, firmware, VIN, type) again from the vehicle's stored
   * records, for a vehicle whose car is not connected to this node. In a cluster a car's records
   * reach only the mirror of the node it is connected to; the other nodes know it from the store
   * as it was when they read it, and one of them announcing it from that (HA's birth message on
   * it) would replace the car's node's retained discovery with an older one. A car connected here
   * is left alone: its live records are the newest. Returns whether a fact changed.
   */
  refreshFacts(vehicleId: string, messages: readonly StoredMessage[]): boolean {
    const v = this.vehicles.get(vehicleId);
    const link = this.deps.hub.link(vehicleId);
    if (!v?.facts || link?.car || link?.v3) return false;
    return this.learnFacts(v, messages);
  }

  /** The unit (S) and identity (F) of stored records into the vehicle's facts; whether one changed. */
  private learnFacts(v: MirroredVehicle, messages: readonly StoredMessage[]): boolean {
    const facts = v.facts ?? v.pendingFacts;
    const before = JSON.stringify(facts);
    for (const m of messages) {
      if (m.paranoid) continue;
      if (m.code === 'S') facts.distanceUnit = distanceUnitOf(m.data);
      else if (m.code === 'F') Object.assign(facts, { firmware: undefined, vin: undefined, vehicleType: undefined }, identityOf(m.data));
    }
    return JSON.stringify(facts) !== before;
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

  private vehicle(vehicleId: string): MirroredVehicle {
    let v = this.vehicles.get(vehicleId);
    if (v && !v.facts && v.unknownUntil !== 0 && v.unknownUntil <= Date.now()) {
      this.vehicles.delete(vehicleId);
      v = undefined;
    }
    if (!v) {
      v = {
        vehicleId,
        facts: null,
        pendingFacts: { ownerName: '', prefix: '', distanceUnit: 'K' },
        unknownUntil: 0,
        sent: new Map(),
        latest: new Map(),
        v3: false,
        lastSeen: 0,
        lastSeenSent: 0,
        metricsUnit: 'K',
        derived: new Map(),
        charging: null,
        energyTotal: 0,
      };
      this.vehicles.set(vehicleId, v);
      void this.load(v);
    }
    return v;
  }

  /** Reads the vehicle (its owner as the store has it now) and its lifetime energy, then publishes what waited. */
  private async load(v: MirroredVehicle): Promise<void> {
    try {
      const stored = await this.deps.store.getVehicle(v.vehicleId);
      if (this.vehicles.get(v.vehicleId) !== v) return;
      if (!stored || /[+#/]/.test(stored.ownerName)) {
        // removed (its car may still be connected), or an owner whose name cannot be a topic level
        v.unknownUntil = Date.now() + UNKNOWN_FOR_MS;
        v.latest.clear();
        return;
      }
      const total = await this.energy.read(v.vehicleId);
      if (this.vehicles.get(v.vehicleId) !== v) return;
      if (total > v.energyTotal) v.energyTotal = total;
      v.facts = Object.assign(v.pendingFacts, { ownerName: stored.ownerName, prefix: this.deps.prefixOf(v.vehicleId, stored.ownerName) });
      this.dirty.add(v);
    } catch (err) {
      this.deps.log.warn({ err, vehicle: v.vehicleId }, 'MQTT state: reading the vehicle failed');
      if (this.vehicles.get(v.vehicleId) === v) this.vehicles.delete(v.vehicleId);
    }
  }

  /** Everything of the vehicle is published again at the next flush. */
  private republish(v: MirroredVehicle): void {
    for (const [code, data] of v.sent) if (!v.latest.has(code)) v.latest.set(code, data);
    v.sent.clear();
    v.derived.clear();
    v.lastSeenSent = 0;
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
    let factsChanged = v.sent.size === 0 && v.derived.size === 0;
    const prefix = this.deps.prefixOf(v.vehicleId, facts.ownerName);
    if (prefix !== facts.prefix) {
      // a v3 module spells the vehicle id its own way: its topics are where the vehicle's are
      this.deps.clearPrefix(facts.prefix);
      facts.prefix = prefix;
      this.republish(v);
      factsChanged = true;
    }
    const s = v.latest.get('S');
    if (s !== undefined) {
      const unit = distanceUnitOf(s);
      if (unit !== facts.distanceUnit) {
        facts.distanceUnit = unit;
        factsChanged = true;
      }
    }
    if (facts.distanceUnit !== v.metricsUnit) {
      // the records' distances read differently now (a new S, or one learnt by priming): every metric again
      v.metricsUnit = facts.distanceUnit;
      for (const [code, data] of v.sent) if (!v.latest.has(code)) v.latest.set(code, data);
      v.sent.clear();
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
    this.energy.readLater(
      v.vehicleId,
      (total) => {
        if (this.closed || this.vehicles.get(v.vehicleId) !== v) return;
        // never decreasing (HA's total_increasing would read a decrease as a meter reset)
        if (total > v.energyTotal) v.energyTotal = total;
        this.dirty.add(v);
      },
      (err) => this.deps.log.warn({ err, vehicle: v.vehicleId }, 'MQTT state: reading the charged energy failed'),
    );
  }

  close(): void {
    if (this.closed) return;
    if (this.resume) clearImmediate(this.resume);
    this.resume = null;
    this.flush(true); // what is still going out, then what is dirty
    this.flush(true);
    this.closed = true;
    if (this.flusher) clearInterval(this.flusher);
    this.energy.close();
  }
}
