/**
 * What a node needs to be a member of a cluster (`--cluster`), or to be alone: the Cluster the hub
 * talks to, and where API sessions and command jobs live. Without `--cluster` nothing here touches
 * Redis.
 */
import type { Logger } from 'pino';
import { SoloCluster, type Cluster } from '../hub/cluster/cluster.js';
import { LocalJobRecords, type JobRecords } from '../hub/commands/command-jobs.js';
import { LocalSessionStore, type SessionStore } from '../hub/sessions/session-store.js';
import { RedisCluster } from './redis-cluster.js';
import { RedisJobRecords } from './redis-jobs.js';
import { RedisSessionStore } from './redis-sessions.js';

export interface ClusterConfig {
  /** `redis://host:6379[/db]` (or `rediss://`). */
  url: string;
  /** This node's name (`--node-id`, default host name + pid). */
  nodeId: string;
  /** Prefix of the cluster's Redis keys and channels (`--cluster-prefix`, default `vts`). */
  prefix: string;
  /**
   * Lease renewal period (ms, `--cluster-heartbeat`): a node is dead after five of them, and a
   * Redis command or PING unanswered for two counts as a connection that hangs. Default 2000.
   */
  heartbeatMs?: number;
  /** Period of the presence re-read and car claim renewal (ms, `--cluster-repair`). Default 30000. */
  repairMs?: number;
}

export interface ClusterParts {
  cluster: Cluster;
  sessions: SessionStore;
  jobs: JobRecords;
  /** The Redis cluster, when there is one (the MQTT broker's adapters use its address). */
  redis: RedisCluster | null;
}

/** `databaseId`: this node's database (Store.databaseId), which must be the cluster's. */
export function clusterParts(config: ClusterConfig | undefined, log: Logger, databaseId?: string): ClusterParts {
  if (!config) return { cluster: new SoloCluster(), sessions: new LocalSessionStore(), jobs: new LocalJobRecords(), redis: null };
  const heartbeatMs = config.heartbeatMs ?? 2000;
  const deadAfterMs = heartbeatMs * 5;
  const timeoutMs = heartbeatMs * 2;
  const redis = new RedisCluster({ url: config.url, nodeId: config.nodeId, prefix: config.prefix, log, heartbeatMs, deadAfterMs, timeoutMs, repairMs: config.repairMs, databaseId });
  return { cluster: redis, sessions: new RedisSessionStore(redis), jobs: new RedisJobRecords(redis), redis };
}
