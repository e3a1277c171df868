/**
 * Home Assistant discovery on the embedded broker (docs/home-assistant.md): one retained
 * device payload per vehicle at `<prefix>/device/vts_<id>/config` (src/core/ha/discovery.ts),
 * published at start, when what it shows changes (name, unit, firmware, owner), again for a
 * user's vehicles when that user's Home Assistant says `online` on `<prefix>/status`, and
 * cleared (an empty retained payload, with the vehicle's retained state) when a vehicle is
 * removed or changes owner.
 *
 * It is also the broker's rule for the shared discovery topics (`SharedTopics`): anyone may
 * subscribe under `<prefix>/` and publish on `<prefix>/status`, but a vehicle's discovery reaches
 * only its owner (and, until the clear is out, its former owner) and the superuser.
 *
 * Vehicles are added and removed by the CLI and by other nodes: the list is read again every
 * `resyncMs`.
 */
import type { Logger } from 'pino';
import { discoveryNodeOf, discoveryPayload, discoveryTopic, haNodeId, type HaServer } from '../core/ha/discovery.js';
import type { Store, Vehicle } from '../store/store.js';
import type { SharedTopics } from './broker.js';
import type { StateMirror, VehicleFacts } from './state-mirror.js';

export interface HaAnnouncerDeps {
  store: Store;
  log: Logger;
  mirror: StateMirror;
  /** The discovery prefix (`homeassistant`). */
  prefix: string;
  server: HaServer;
  publish(topic: string, payload: string, retain: boolean): Promise<void>;
  /** The topics of the retained messages that match a filter. */
  retainedTopics(filter: string): Promise<string[]>;
  /** Milliseconds between two readings of the vehicle list (default 60 s). */
  resyncMs?: number;
  /** How many stored vehicles are read at once at start. */
  concurrency?: number;
}

interface Announced {
  vehicle: Vehicle;
  /** Who may receive the discovery: the owner, and a former owner until the clear is out. */
  readers: Set<string>;
  /** The payload last published (to publish only changes). */
  payload: string | null;
}

export class HaAnnouncer implements SharedTopics {
  private readonly byVehicle = new Map<string, Announced>();
  private readonly byNode = new Map<string, Announced>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private resyncing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HaAnnouncerDeps) {}

  /** Reads every vehicle and publishes its state and discovery (in the background: `ready` resolves when done). */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.resync(), this.deps.resyncMs ?? 60_000);
    this.timer.unref();
    return this.resync();
  }

  // --- SharedTopics: the broker's rule for `<prefix>/…` ---

  mayRead(_user: string, filter: string): boolean | null {
    const p = this.deps.prefix;
    if (filter === '#' || filter === '+/#') return null;
    return filter === `${p}/#` || filter.startsWith(`${p}/`) ? true : null;
  }

  mayWrite(_user: string, topic: string): boolean | null {
    const p = this.deps.prefix;
    if (topic === `${p}/status`) return true;
    return topic.startsWith(`${p}/`) ? false : null;
  }

  mayReceive(user: string, topic: string): boolean | null {
    const p = this.deps.prefix;
    if (!topic.startsWith(`${p}/`)) return null;
    if (topic === `${p}/status`) return true;
    const node = discoveryNodeOf(p, topic);
    return node !== null && this.byNode.get(node)?.readers.has(user) === true;
  }

  // --- events ---

  /** A user's Home Assistant came online: its vehicles' discovery again (all for the superuser). */
  birth(user: string, everyone: boolean): void {
    for (const a of this.byVehicle.values()) {
      if (!everyone && a.vehicle.ownerName !== user) continue;
      a.payload = null;
      this.announce(a);
    }
  }

  /** The mirror learned what the discovery shows (unit, firmware, prefix): published again if it changed. */
  factsChanged(vehicleId: string): void {
    const a = this.byVehicle.get(vehicleId);
    if (a) this.announce(a);
  }

  /** Reads the vehicle list and publishes what changed. */
  resync(): Promise<void> {
    this.resyncing = this.resyncing.then(() => this.resyncNow()).catch((err: unknown) => this.deps.log.warn({ err }, 'Home Assistant discovery: reading the vehicles failed'));
    return this.resyncing;
  }

  private async resyncNow(): Promise<void> {
    if (this.closed) return;
    const vehicles = await this.deps.store.listVehicles();
    const seen = new Set<string>();
    const fresh: Vehicle[] = [];
    for (const v of vehicles) {
      seen.add(v.id);
      const a = this.byVehicle.get(v.id);
      if (!a) {
        fresh.push(v);
        continue;
      }
      if (a.vehicle.ownerId !== v.ownerId || a.vehicle.ownerName !== v.ownerName) {
        await this.clear(a);
        fresh.push(v);
      } else if (a.vehicle.name !== v.name) {
        a.vehicle = v;
        this.announce(a);
      }
    }
    for (const a of [...this.byVehicle.values()]) if (!seen.has(a.vehicle.id)) await this.clear(a);
    await this.add(fresh);
  }

  /** New vehicles: their stored state goes to the mirror, whose facts then announce them. */
  private async add(vehicles: readonly Vehicle[]): Promise<void> {
    for (const v of vehicles) {
      const a: Announced = { vehicle: v, readers: new Set([v.ownerName]), payload: null };
      this.byVehicle.set(v.id, a);
      this.byNode.set(haNodeId(v.id), a);
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let v = vehicles[next++]; v && !this.closed; v = vehicles[next++]) {
        const messages = this.deps.store.peekCarMessages(v.id) ?? (await this.deps.store.getCarMessages(v.id));
        this.deps.mirror.prime(v.id, v.ownerId, messages);
        // the mirror may have heard the car, and told its facts, before this reading knew the
        // vehicle (added since the last one): then no later flush tells them again
        const a = this.byVehicle.get(v.id);
        if (a?.vehicle === v) this.announce(a);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 8, vehicles.length) }, worker));
  }

  private announce(a: Announced): void {
    if (this.closed) return;
    const facts: VehicleFacts | null = this.deps.mirror.facts(a.vehicle.id);
    if (!facts) return; // announced once the mirror has read the vehicle
    const payload = JSON.stringify(
      discoveryPayload(
        {
          vehicleId: a.vehicle.id,
          name: a.vehicle.name || a.vehicle.id,
          topicPrefix: facts.prefix,
          distanceUnit: facts.distanceUnit,
          vehicleType: facts.vehicleType,
          firmware: facts.firmware,
          vin: facts.vin,
        },
        this.deps.server,
      ),
    );
    if (payload === a.payload) return;
    a.payload = payload;
    this.deps.publish(discoveryTopic(this.deps.prefix, a.vehicle.id), payload, true).catch((err: unknown) => {
      a.payload = null;
      this.deps.log.warn({ err, vehicle: a.vehicle.id }, 'Home Assistant discovery: publishing failed');
    });
  }

  /** A vehicle removed or now someone else's: its discovery and its retained state are cleared. */
  private async clear(a: Announced): Promise<void> {
    const id = a.vehicle.id;
    this.byVehicle.delete(id);
    const prefix = this.deps.mirror.forget(id);
    try {
      await this.deps.publish(discoveryTopic(this.deps.prefix, id), '', true);
      if (prefix) {
        const topics = await this.deps.retainedTopics(`${prefix}#`);
        await Promise.all(topics.map((t) => this.deps.publish(t, '', true)));
      }
    } catch (err) {
      this.deps.log.warn({ err, vehicle: id }, 'Home Assistant discovery: clearing failed');
    }
    if (this.byNode.get(haNodeId(id)) === a) this.byNode.delete(haNodeId(id));
    this.deps.log.info({ vehicle: id }, 'Home Assistant discovery: vehicle removed or moved to another owner: cleared');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }
}
