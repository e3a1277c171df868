/** Command jobs in the cluster's Redis (`job:<id>`, expiring), so that any node answers for any job. */
import type { Job, JobRecords } from '../hub/commands/command-jobs.js';
import type { RedisCluster } from './redis-cluster.js';

function parseJob(text: string | null): Job | undefined {
  if (text === null) return undefined;
  try {
    const j = JSON.parse(text) as Partial<Job>;
    const statusOk = j.status === 'running' || j.status === 'done' || j.status === 'failed';
    if (typeof j.id !== 'string' || typeof j.vehicleId !== 'string' || typeof j.ownerId !== 'number' || !statusOk) return undefined;
    return j as Job;
  } catch {
    return undefined;
  }
}

export class RedisJobRecords implements JobRecords {
  constructor(private readonly cluster: RedisCluster) {}

  async put(job: Job, keepMs: number): Promise<void> {
    await this.cluster.shared((redis) => redis.set(this.cluster.key(`job:${job.id}`), JSON.stringify(job), 'PX', Math.max(1, Math.round(keepMs))));
  }

  async get(id: string): Promise<Job | undefined> {
    return parseJob(await this.cluster.shared((redis) => redis.get(this.cluster.key(`job:${id}`))));
  }
}
