/**
 * What the hub knows of the other nodes of a cluster, and how it reaches them: the one interface
 * behind which one `vts serve` process becomes a member of many (src/cluster/ implements it over
 * Redis). A single node uses `SoloCluster`: no other nodes, nothing to reach, exactly today's
 * behaviour.
 *
 * Each node keeps its own sockets. The hub announces what it holds of each vehicle (its car, its
 * v3 link, its apps and batch clients) and hears what the other nodes hold; it sends what a
 * vehicle's clients elsewhere must see to the nodes that have such clients, and what the car must
 * see to the node that holds it. Commands run on the node that holds the vehicle's link.
 */
import type { LiveEvent, StoredRef } from '../types.js';
import type { CommandResult, JobRequest } from '../commands/command-service.js';

/** What one node holds of one vehicle. */
export interface NodePresence {
  car: boolean;
  v3: boolean;
  /** MP apps, API sessions and live streams registered as apps on that node. */
  apps: number;
  batches: number;
  /**
   * The number of the car's login (its claim, see `claimCar`), added by the cluster: the newest
   * wins when two nodes say they hold the car (one of them died or is closing it). Absent while
   * the claim is being made.
   */
  claim?: number;
}

export const NO_PRESENCE: NodePresence = Object.freeze({ car: false, v3: false, apps: 0, batches: 0 });

/** What the other nodes hold of one vehicle, together. */
export interface RemotePresence {
  /** A node that holds the vehicle's v2 car, or null. */
  carNode: string | null;
  /** A node that holds the vehicle's v3 link, or null. */
  v3Node: string | null;
  apps: number;
  batches: number;
  /** Nodes with apps or batch clients of the vehicle: where its messages must go. */
  interested: readonly string[];
}

export const NO_REMOTE: RemotePresence = Object.freeze({ carNode: null, v3Node: null, apps: 0, batches: 0, interested: Object.freeze([]) });

/** Messages for a vehicle's clients on another node (already committed where they were stored). */
export interface VehicleOutput {
  /** `[code, data]` for every app and batch client, in order. */
  messages: readonly (readonly [string, string])[];
  /** The stored car message they pass on, if any (see Hub.deliverNow). */
  of?: StoredRef;
  /** What the vehicle's live watchers hear. */
  live?: LiveEvent;
}

/** What a cluster tells the hub (the hub implements it). */
export interface ClusterEvents {
  /** What other nodes hold of the vehicle changed (Z counts, online state, live link events). */
  presenceChanged(vehicleId: string): void;
  /** Messages for this node's clients of the vehicle. */
  output(vehicleId: string, out: VehicleOutput): void;
  /** A message from a client elsewhere for the vehicle's car on this node. */
  carMessage(vehicleId: string, code: string, data: string): void;
  /** The car logged in on another node: this node's connection of it is closed (if it is `claim`). */
  carTaken(vehicleId: string, claim: number): void;
  /**
   * This node's car of the vehicle was claimed again (the cluster joined again after losing
   * Redis): its claim `from` is `to` now (a later `carTaken` names `to`).
   */
  carReclaimed(vehicleId: string, from: number, to: number): void;
  /** Resolves once everything written before the call is committed (the replay barrier of another node). */
  committed(): Promise<void>;
  /** Runs a command for a caller on another node; `onRecord` streams the answer records back. */
  runCommand(req: JobRequest): Promise<CommandResult>;
  /** A group's data changed on another node (`data` null: the vehicle left the group). */
  groupChanged(group: string, vehicleId: string, data: string | null): void;
}

export interface Cluster {
  /** This node's name (`--node-id`). */
  readonly nodeId: string;
  /** True when there are (or may be) other nodes. */
  readonly clustered: boolean;
  /** Joins: learns what the other nodes hold, and from then on tells `events` what changes. */
  start(events: ClusterEvents): Promise<void>;
  /** This node's part of the vehicle changed (what it holds now, whole). */
  announce(vehicleId: string, presence: NodePresence): void;
  /** What the other nodes hold of the vehicle (from memory: cheap). */
  remote(vehicleId: string): RemotePresence;
  /**
   * The vehicle's car logged in here: the node that held it before is told to close its
   * connection. Resolves to this login's claim number (0 on a single node).
   */
  claimCar(vehicleId: string): Promise<number>;
  /** Sends the output to the given nodes. */
  output(nodes: readonly string[], vehicleId: string, out: VehicleOutput): void;
  /** Sends a client's message to the car on the node that holds it. */
  toCar(node: string, vehicleId: string, code: string, data: string): void;
  /** Resolves once the given node has committed what it holds for its vehicles (bounded wait). */
  sync(node: string): Promise<void>;
  /** Runs a command job on the node that holds the vehicle's link; records stream to `req.job.onRecord`. */
  runCommand(node: string, req: JobRequest): Promise<CommandResult>;
  /** A group's data of a car on this node changed (`data` null: gone). */
  groupChanged(group: string, vehicleId: string, data: string | null): void;
  /** The current group data of the cars on other nodes. */
  groupMembers(group: string): Promise<[string, string][]>;
  /**
   * Puts `member` in the shared set `set` (on) or takes it out; resolves to true when that changed
   * the set (one node of many sees the change).
   */
  toggle(set: string, member: string, on: boolean): Promise<boolean>;
  /**
   * Claims `key` of a shared table for `owner`: resolves to null when it is now the owner's (it was
   * free or the owner's already), else to the owner that holds it.
   */
  claim(table: string, key: string, owner: string): Promise<string | null>;
  /** Frees `key` if `owner` holds it. */
  release(table: string, key: string, owner: string): Promise<void>;
  /** Sends `body` to the other nodes' handlers of `topic` (shared counters: the login throttle, the rate limit). */
  broadcast(topic: string, body: unknown): void;
  /** Hears the other nodes' broadcasts of `topic` (the body is checked by the handler). */
  onBroadcast(topic: string, handler: (body: unknown, from: string) => void): void;
  /**
   * Runs for the leadership of `role` (one node of the cluster does the job: the bridge of an
   * external MQTT broker): `onChange(true)` when this node leads, `onChange(false)` when it stops.
   * Returns a function that gives the role up.
   */
  lead(role: string, onChange: (leading: boolean) => void): () => void;
  /** Leaves the cluster (what this node holds is dropped from it). */
  stop(): Promise<void>;
  /**
   * For `/ready`: `ok` (connected, messages flow), `off` (a single node), `degraded: <why>` (out of
   * the cluster for now, serving its own connections) or `failed: <why>`, in a few words.
   */
  health(): string;
}

/** A single node: there is nobody else; the shared sets and tables are this process's. */
export class SoloCluster implements Cluster {
  readonly clustered = false;
  private readonly sets = new Map<string, Set<string>>();
  private readonly tables = new Map<string, Map<string, string>>();

  constructor(readonly nodeId = 'solo') {}

  health(): string {
    return 'off';
  }

  async start(): Promise<void> {}
  announce(): void {}
  remote(): RemotePresence {
    return NO_REMOTE;
  }
  async claimCar(): Promise<number> {
    return 0;
  }
  output(): void {}
  toCar(): void {}
  async sync(): Promise<void> {}
  runCommand(): Promise<CommandResult> {
    return Promise.reject(new Error('no other node'));
  }
  groupChanged(): void {}
  async groupMembers(): Promise<[string, string][]> {
    return [];
  }
  async toggle(set: string, member: string, on: boolean): Promise<boolean> {
    let s = this.sets.get(set);
    if (!s) this.sets.set(set, (s = new Set()));
    if (on === s.has(member)) return false;
    if (on) s.add(member);
    else s.delete(member);
    return true;
  }
  async claim(table: string, key: string, owner: string): Promise<string | null> {
    let t = this.tables.get(table);
    if (!t) this.tables.set(table, (t = new Map()));
    const held = t.get(key);
    if (held !== undefined && held !== owner) return held;
    t.set(key, owner);
    return null;
  }
  async release(table: string, key: string, owner: string): Promise<void> {
    const t = this.tables.get(table);
    if (t?.get(key) === owner) t.delete(key);
  }
  broadcast(): void {}
  onBroadcast(): void {}
  lead(_role: string, onChange: (leading: boolean) => void): () => void {
    onChange(true);
    return () => onChange(false);
  }
  async stop(): Promise<void> {}
}
