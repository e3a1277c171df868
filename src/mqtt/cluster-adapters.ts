/**
 * The embedded broker of a cluster node: aedes' own Redis adapters, so that every node's broker
 * shares subscriptions, retained messages, sessions and wills (aedes-persistence-redis, its keys
 * under `<prefix>:mqtt:`) and passes publishes to the subscribers on the other nodes
 * (mqemitter-redis: every MQTT topic travels on a Redis channel of its own name). A publish of a
 * module reaches the vts bridge of the node it is connected to only, so each vehicle is bridged
 * once.
 */
import type { EventEmitter } from 'node:events';
import persistenceRedis from 'aedes-persistence-redis';
import { Redis } from 'ioredis';
import mqemitterRedis from 'mqemitter-redis';

export interface BrokerCluster {
  /** The node id: the broker's id in the cluster (`$SYS/<id>/…`). */
  id: string;
  /** The cluster's Redis (`--cluster`). */
  url: string;
  /** The cluster's key prefix (`--cluster-prefix`). */
  prefix: string;
}

export interface ClusterAdapters {
  mq: ReturnType<typeof mqemitterRedis>;
  persistence: ReturnType<typeof persistenceRedis>;
  /** Ends the persistence's connection (aedes' close ends the emitter). */
  close(): Promise<void>;
}

export function clusterAdapters(c: BrokerCluster): ClusterAdapters {
  const mq = mqemitterRedis({ connectionString: c.url });
  const conn = new Redis(c.url, { keyPrefix: `${c.prefix}:mqtt:`, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(100 * times, 2000) });
  // errors while Redis is away are the cluster's to report (src/cluster/redis-cluster.ts)
  conn.on('error', () => undefined);
  (mq as unknown as { state: EventEmitter }).state.on('error', () => undefined);
  const persistence = persistenceRedis({ conn });
  return {
    mq,
    persistence,
    close: () =>
      new Promise<void>((resolve) => {
        persistence.destroy(() => {
          conn.disconnect();
          resolve();
        });
      }),
  };
}
