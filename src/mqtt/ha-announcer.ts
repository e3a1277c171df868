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
 * only the user whose topics it names (decided from the payload itself, so that every node of a
 * cluster decides the same whatever its view of the vehicle list) and the superuser; its clear
 * (an empty payload) reaches who read it on this node; a birth message reaches nobody but the
 * superuser (vts hears it on the broker itself).
 *
 * Vehicles are added and removed by the CLI and by other nodes: the list is read again every
 * `resyncMs`. With discovery off (`prefix` null) the list is still read, so that the retained
 * state of a removed or given-away vehicle is cleared.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { discoveryNodeOf, discoveryPayload, discoveryTopic, haNodeId, type HaServer } from '../core/ha/discovery.js';
import type { CarMessage, Store, Vehicle } from '../store/store.js';
import type { SharedTopics } from './broker.js';
import type { StateMirror, VehicleFacts } from './state-mirror.js';

export interface HaAnnouncerDeps {
  store: Store;
  log: Logger;
  mirror: StateMirror;
  /** The discovery prefix (`homeassistant`); null: no discovery. */
  prefix: string | null;
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
  /** A hash of the payload last published (to publish only changes). */
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
    if (p === null || filter === '#' || filter === '+/#') return null;
    return filter === `${p}/#` || filter.startsWith(`${p}/`) ? true : null;
  }

  mayWrite(_user: string, topic: string): boolean | null {
    const p = this.deps.prefix;
    if (p === null) return null;
    if (topic === `${p}/status`) return true;
    return topic.startsWith(`${p}/`) ? false : null;
  }

  mayReceive(user: string, topic: string, payload: Buffer): boolean | null {
    const p = this.deps.prefix;
    if (p === null || !topic.startsWith(`${p}/`)) return null;
    // a birth message is for vts alone: one user's publish must not reach another user's clients
    if (topic === `${p}/status`) return false;
    const node = discoveryNodeOf(p, topic);
    if (node === null) return false;
    if (payload.length === 0) return this.byNode.get(node)?.readers.has(user) === true;
    return namesOnly(payload, user);
  }

  // --- events ---

  /** A user's Home Assistant came online: its vehicles' discovery again (all for the superuser). */
  birth(user: string, everyone: boolean): void {
    if (this.deps.prefix === null) return;
    // the list first: a vehicle added with the CLI since the last reading is announced too
    void this.resync().then(() => this.announceAgain(user, everyone));
  }

  private announceAgain(user: string, everyone: boolean): void {
    const theirs = [...this.byVehicle.values()].filter((a) => everyone || a.vehicle.ownerName === user);
    // in a cluster, as the node of each car shows it (its facts read again from the store)
    void this.refresh(theirs).then(() => {
      for (const a of theirs) {
        if (this.byVehicle.get(a.vehicle.id) !== a) continue;
        a.payload = null;
        this.announce(a);
      }
    });
  }

  /**
   * Reads the facts of vehicles whose car is on another node of a cluster again from the store
   * (StateMirror.refreshFacts), before this node announces them for another reason than their
   * car's records (a birth message, a new name). Never fails: on an error the facts stay.
   */
  private async refresh(list: readonly Announced[]): Promise<void> {
    await this.eachStored(list.map((a) => a.vehicle), (v, messages) => this.deps.mirror.refreshFacts(v.id, messages));
  }

  /** Reads the stored records of each vehicle, `concurrency` at a time, for `use`; a failed read is logged and skipped. */
  private async eachStored(vehicles: readonly Vehicle[], use: (v: Vehicle, messages: CarMessage[]) => void): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let v = vehicles[next++]; v && !this.closed; v = vehicles[next++]) {
        try {
          use(v, this.deps.store.peekCarMessages(v.id) ?? (await this.deps.store.getCarMessages(v.id)));
        } catch (err) {
          this.deps.log.warn({ err, vehicle: v.id }, 'Home Assistant discovery: reading the vehicle failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 8, vehicles.length) }, worker));
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
        await this.refresh([a]);
        this.announce(a);
      } else if (!this.byNode.has(haNodeId(v.id))) {
        // the vehicle that shared its node id is gone: this one takes it
        this.byNode.set(haNodeId(v.id), a);
        a.payload = null;
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
      const node = haNodeId(v.id);
      const holder = this.byNode.get(node);
      // two ids of one node id (`A.B`, `A_B`): one discovery topic, which the first by id keeps
      // (as after a restart, which reads the list in that order)
      if (holder && holder.vehicle.id < v.id) {
        this.deps.log.warn({ vehicle: v.id, other: holder.vehicle.id, node }, 'Home Assistant discovery: the vehicle shares its node id with another: not announced');
        continue;
      }
      if (holder) {
        this.deps.log.warn({ vehicle: holder.vehicle.id, other: v.id, node }, 'Home Assistant discovery: the vehicle shares its node id with another: not announced');
        holder.payload = null;
      }
      this.byNode.set(node, a);
    }
    await this.eachStored(vehicles, (v, messages) => {
      this.deps.mirror.prime(v.id, messages);
      // the mirror may know the vehicle already (its car sent before this list was read): then
      // it will not tell its facts again
      const a = this.byVehicle.get(v.id);
      if (a?.vehicle === v) this.announce(a);
    });
  }

  private announce(a: Announced): void {
    const prefix = this.deps.prefix;
    if (prefix === null || this.closed || this.byNode.get(haNodeId(a.vehicle.id)) !== a) return;
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
    const hash = createHash('sha1').update(payload).digest('base64');
    if (hash === a.payload) return;
    a.payload = hash;
    this.deps.publish(discoveryTopic(prefix, a.vehicle.id), payload, true).catch((err: unknown) => {
      a.payload = null;
      this.deps.log.warn({ err, vehicle: a.vehicle.id }, 'Home Assistant discovery: publishing failed');
    });
  }

  /** A vehicle removed or now someone else's: its discovery and its retained state are cleared. */
  private async clear(a: Announced): Promise<void> {
    const id = a.vehicle.id;
    this.byVehicle.delete(id);
    const prefix = this.deps.mirror.forget(id) ?? `ovms/${a.vehicle.ownerName}/${id}/`;
    const holder = this.byNode.get(haNodeId(id)) === a;
    try {
      if (holder && this.deps.prefix !== null) await this.deps.publish(discoveryTopic(this.deps.prefix, id), '', true);
      if (!/[+#]/.test(prefix)) {
        const topics = await this.deps.retainedTopics(`${prefix}#`);
        await Promise.all(topics.map((t) => this.deps.publish(t, '', true)));
      }
    } catch (err) {
      this.deps.log.warn({ err, vehicle: id }, 'Home Assistant discovery: clearing failed');
    }
    if (holder) this.byNode.delete(haNodeId(id));
    this.deps.log.info({ vehicle: id }, 'Home Assistant discovery: vehicle removed or moved to another owner: cleared');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }
}

/** Whether every vehicle topic a discovery payload names is under `ovms/<user>/` (and it names one). */
function namesOnly(payload: Buffer, user: string): boolean {
  const text = payload.toString('utf8');
  const topics = /"ovms\/([^/"]*)\//g;
  let named = false;
  for (let m = topics.exec(text); m !== null; m = topics.exec(text)) {
    if (m[1] !== user) return false;
    named = true;
  }
  return named;
}
