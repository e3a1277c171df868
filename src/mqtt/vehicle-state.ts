/**
 * What vts publishes on its embedded broker for every vehicle (docs/home-assistant.md): the state
 * mirror (src/mqtt/state-mirror.ts), Home Assistant discovery (src/mqtt/ha-announcer.ts) and the
 * commands Home Assistant sends (src/mqtt/ha-commands.ts). `sharedTopics` goes to the broker
 * before it starts; `start` runs once it listens.
 */
import type { Aedes, Client } from 'aedes';
import type { Logger } from 'pino';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import type { EmbeddedBroker, SharedTopics } from './broker.js';
import { HaAnnouncer } from './ha-announcer.js';
import { isCommandTopic, runHaCommand } from './ha-commands.js';
import { StateMirror } from './state-mirror.js';
import { isSuperuser } from '../core/mqtt/acl.js';

export interface VehicleStateOptions {
  /** Mirror v2 cars' records as v3 metric topics (`--mqtt-mirror`). */
  mirror: boolean;
  /** Home Assistant discovery prefix; null = no discovery (`--ha-discovery off`). */
  haPrefix: string | null;
  /** The dashboard's address (`--public-url`), for the device's configuration URL. */
  publicUrl?: string;
  version: string;
  /** Milliseconds between two publishes of a vehicle's changes (default 1 s). */
  flushMs?: number;
  /** Milliseconds between two readings of the vehicle list (default 60 s). */
  resyncMs?: number;
}

export interface VehicleStateDeps {
  hub: Hub;
  store: Store;
  log: Logger;
  superuser?: string;
  /** The topic prefix of a v3 module the bridge knows (its own spelling). */
  v3Prefix(vehicleId: string): string | undefined;
}

export interface VehicleState {
  /** The broker's rule for the discovery topics (undefined without discovery). */
  readonly sharedTopics: SharedTopics | undefined;
  readonly mirror: StateMirror;
  /** Reads the vehicle list: announces (with discovery on) and clears removed vehicles. */
  readonly announcer: HaAnnouncer;
  /** Starts publishing; the stored state of every vehicle is read in the background (`ready`). */
  start(broker: EmbeddedBroker): void;
  /** Settles once every stored vehicle has been read and handed to the mirror. */
  ready(): Promise<void>;
  close(): void;
}

function publisher(aedes: Aedes): (topic: string, payload: string, retain: boolean) => Promise<void> {
  return (topic, payload, retain) =>
    new Promise((resolve, reject) => {
      aedes.publish({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain, dup: false }, (err) => (err ? reject(err) : resolve()));
    });
}

interface RetainedSource {
  createRetainedStream(pattern: string): AsyncIterable<{ topic: string }>;
}

async function retainedTopics(aedes: Aedes, filter: string): Promise<string[]> {
  const persistence = (aedes as unknown as { persistence: RetainedSource }).persistence;
  const topics: string[] = [];
  for await (const packet of persistence.createRetainedStream(filter)) topics.push(packet.topic);
  return topics;
}

export function vehicleState(opts: VehicleStateOptions, deps: VehicleStateDeps): VehicleState {
  const { hub, store, log } = deps;
  let aedes: Aedes | null = null;
  let userOf: EmbeddedBroker['userOf'] = () => undefined;
  const publish = (topic: string, payload: string, retain: boolean): Promise<void> =>
    aedes ? publisher(aedes)(topic, payload, retain) : Promise.reject(new Error('the broker is not running'));
  const retained = (filter: string): Promise<string[]> => (aedes ? retainedTopics(aedes, filter) : Promise.resolve([]));
  /** Clears the retained messages under a prefix (a vehicle's topics that moved or went). */
  const clearPrefix = async (prefix: string): Promise<void> => {
    if (/[+#]/.test(prefix)) return;
    const topics = await retained(`${prefix}#`);
    await Promise.all(topics.map((t) => publish(t, '', true)));
  };
  let announcer: HaAnnouncer | null = null;
  const mirror = new StateMirror({
    hub,
    store,
    log,
    metrics: opts.mirror,
    flushMs: opts.flushMs,
    publish: (topic, payload, retain = true) => {
      publish(topic, payload, retain).catch((err: unknown) => log.warn({ err, topic }, 'MQTT state: publishing failed'));
    },
    clearPrefix: (prefix) => void clearPrefix(prefix).catch((err: unknown) => log.warn({ err, prefix }, 'MQTT state: clearing the old topics failed')),
    prefixOf: (vehicleId, ownerName) => deps.v3Prefix(vehicleId) ?? `ovms/${ownerName}/${vehicleId}/`,
    onFacts: (vehicleId) => announcer?.factsChanged(vehicleId),
  });
  // with discovery off it still reads the vehicle list: a removed vehicle's state is cleared
  announcer = new HaAnnouncer({
    store,
    log,
    mirror,
    prefix: opts.haPrefix,
    server: { version: opts.version.replace(/^vts-/, ''), ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}) },
    publish,
    retainedTopics: retained,
    resyncMs: opts.resyncMs,
  });
  const stops: (() => void)[] = [];
  let ready: Promise<void> = Promise.resolve();
  return {
    ready: () => ready,
    sharedTopics: opts.haPrefix === null ? undefined : announcer,
    mirror,
    announcer,
    start(broker) {
      aedes = broker.aedes;
      userOf = broker.userOf;
      stops.push(hub.onCarData(mirror.observer()));
      stops.push(hub.onLinkChange((vehicleId, ownerId) => mirror.linkChanged(vehicleId, ownerId)));
      const statusTopic = opts.haPrefix === null ? null : `${opts.haPrefix}/status`;
      const onPublish = (packet: { topic: string; payload: Buffer | string }, client: Client | null): void => {
        if (!client) return;
        // inside aedes' own publish: nothing may escape
        try {
          const user = userOf(client);
          if (!user) return;
          if (packet.topic === statusTopic) {
            if (String(packet.payload) === 'online') announcer.birth(user.name, isSuperuser(user.name, deps.superuser));
          } else if (isCommandTopic(packet.topic)) {
            void runHaCommand({ store, commands: hub.commands, log, superuser: deps.superuser, publish }, user, packet.topic, String(packet.payload));
          }
        } catch (err) {
          log.error({ err, topic: packet.topic }, 'MQTT: handling a publish failed');
        }
      };
      broker.aedes.on('publish', onPublish);
      stops.push(() => broker.aedes.removeListener('publish', onPublish));
      mirror.start();
      ready = announcer.start().catch((err: unknown) => log.warn({ err }, 'MQTT state: reading the vehicles failed'));
    },
    close() {
      for (const stop of stops.splice(0)) stop();
      announcer.close();
      mirror.close();
    },
  };
}
