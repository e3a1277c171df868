/**
 * The embedded broker of a cluster node: aedes' own Redis adapters, so that every node's broker
 * shares subscriptions, retained messages, sessions and wills (aedes-persistence-redis, its keys
 * under `<prefix>:mqtt:`) and passes publishes to the subscribers on the other nodes
 * (mqemitter-redis, each MQTT topic on the Redis channel `<prefix>:mqtt:<topic>`, so that clusters
 * with their own `--cluster-prefix` may share one Redis). A publish of a module reaches the vts
 * bridge of the node it is connected to only, so each vehicle is bridged once.
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
  /** The cluster's key prefix (`--cluster-prefix`: letters, digits, `.`, `_`, `-`). */
  prefix: string;
}

export interface ClusterAdapters {
  mq: ReturnType<typeof mqemitterRedis>;
  persistence: ReturnType<typeof persistenceRedis>;
  /**
   * Ends the persistence's connection (aedes' close ends the emitter's, having destroyed the
   * persistence first: see `destroyFirst`).
   */
  close(): Promise<void>;
}

type ChannelCall = (channel: string, ...rest: unknown[]) => unknown;

/**
 * A Redis connection whose pub/sub channels (and patterns) all carry `prefix` (ioredis' keyPrefix
 * covers keys only). The emitter decodes the topic from the message itself, so incoming channel
 * names need no change; the prefix holds no pattern characters.
 */
function prefixedChannels(url: string, prefix: string): Redis {
  const conn = new Redis(url, { enableAutoPipelining: true, maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(100 * times, 2000) });
  const calls = conn as unknown as Record<string, ChannelCall>;
  for (const name of ['publish', 'subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe']) {
    const original = calls[name]!.bind(conn);
    calls[name] = (channel, ...rest) => original(prefix + channel, ...rest);
  }
  // errors while Redis is away are the cluster's to report (src/cluster/redis-cluster.ts)
  conn.on('error', () => undefined);
  return conn;
}

interface Subscriptions {
  addSubscriptions(client: { id: string }, subs: { topic: string; qos: number }[], cb?: unknown): Promise<unknown> | undefined;
}

/**
 * aedes stores a persistent client's SUBSCRIBE once per filter, each call with the packet's whole
 * list and all at once; aedes-persistence waits for the cluster's confirmation of one call per
 * client and first topic, so with more than one filter the other calls never settle and the
 * client gets no SUBACK (aedes issues #458, #602). Identical calls in flight share one.
 */
function oneSubscribeAtATime(persistence: Subscriptions): void {
  const add = persistence.addSubscriptions.bind(persistence);
  const inFlight = new Map<string, Promise<unknown>>();
  persistence.addSubscriptions = (client, subs, cb) => {
    if (cb !== undefined) return add(client, subs, cb);
    const key = `${client.id}\u0000${JSON.stringify(subs.map((s) => [s.topic, s.qos]))}`;
    let run = inFlight.get(key);
    if (!run) {
      run = Promise.resolve(add(client, subs)).finally(() => inFlight.delete(key));
      inFlight.set(key, run);
    }
    return run;
  };
}

/** Longest wait for the persistence to leave the emitter when the broker closes (Redis may be away). */
const DESTROY_TIMEOUT_MS = 1000;

/**
 * aedes' close ends the emitter (`mq.close`) once its clients are closed (their wills and
 * subscriptions still go through the persistence); the persistence must leave the emitter before
 * that, since its destroy unsubscribes through it. The emitter's close runs the persistence's
 * destroy first, bounded in time (Redis may be away), and `close` then only ends its connection.
 */
function destroyFirst(mq: { close(cb?: () => void): unknown }, destroy: () => Promise<void>): void {
  const closeEmitter = mq.close.bind(mq);
  mq.close = (cb?: () => void) => {
    void destroy().finally(() => closeEmitter(cb));
    return mq;
  };
}

export function clusterAdapters(c: BrokerCluster): ClusterAdapters {
  const channels = `${c.prefix}:mqtt:`;
  const mq = mqemitterRedis({ pubConn: prefixedChannels(c.url, channels), subConn: prefixedChannels(c.url, channels) });
  (mq as unknown as { state: EventEmitter }).state.on('error', () => undefined);
  const conn = new Redis(c.url, { keyPrefix: channels, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(100 * times, 2000) });
  conn.on('error', () => undefined);
  const persistence = persistenceRedis({ conn });
  oneSubscribeAtATime(persistence as unknown as Subscriptions);
  let destroyed: Promise<void> | null = null;
  const destroy = (): Promise<void> =>
    (destroyed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DESTROY_TIMEOUT_MS);
      timer.unref();
      // the promise form: the callback form waits for a 'ready' event that aedes' async setup never emits
      (persistence.destroy() as Promise<void> | undefined)?.catch(() => undefined).finally(() => {
        clearTimeout(timer);
        resolve();
      });
    }));
  destroyFirst(mq as unknown as { close(cb?: () => void): unknown }, destroy);
  return {
    mq,
    persistence,
    close: async () => {
      await destroy();
      conn.disconnect();
    },
  };
}
