/**
 * Background command jobs (`POST /api/command/<id>?async=1`): a command run for a caller who asks
 * for its outcome later (`GET /api/command/<id>/<job>`), on any node of a cluster. Each job is kept
 * for ten minutes after it ends; a node runs at most MAX_RUNNING at once. The records live in a
 * JobRecords store: this process for a single node, Redis for a cluster.
 */
import { randomUUID } from 'node:crypto';
import { commandFailure } from '../../errors.js';
import type { CommandResult } from './command-service.js';

const MAX_RUNNING = 10_000;
/** How long a job is kept after it ended. */
export const JOB_KEEP_MS = 10 * 60_000;

export interface Job {
  id: string;
  vehicleId: string;
  ownerId: number;
  status: 'running' | 'done' | 'failed';
  result?: { output: string; result: number };
  /** Why it failed: an error code of the catalogue (src/errors.ts) and its message. */
  failure?: { code: string; message: string };
  /** Epoch ms when it ended. */
  ended?: number;
}

export interface JobRecords {
  /** Stores (or replaces) the job, kept for `keepMs`. */
  put(job: Job, keepMs: number): Promise<void>;
  get(id: string): Promise<Job | undefined>;
}

/** Job records in this process (a single node). */
export class LocalJobRecords implements JobRecords {
  private readonly jobs = new Map<string, { job: Job; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async put(job: Job, keepMs: number): Promise<void> {
    this.sweep();
    this.jobs.delete(job.id); // re-inserted at the end: the map stays in expiry order
    this.jobs.set(job.id, { job, until: this.now() + keepMs });
  }

  async get(id: string): Promise<Job | undefined> {
    const e = this.jobs.get(id);
    return e && e.until > this.now() ? e.job : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, e] of this.jobs) {
      if (e.until > now) break;
      this.jobs.delete(id);
    }
  }
}

export class CommandJobs {
  private running = 0;

  constructor(
    private readonly records: JobRecords,
    /** How long a running job may take at most (its record outlives it by JOB_KEEP_MS). */
    private readonly maxRunMs: number,
    private readonly now: () => number = Date.now,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /**
   * Starts a command as a job; undefined (and the command is not started) when this node runs
   * too many jobs already.
   */
  async start(vehicleId: string, ownerId: number, execute: () => Promise<CommandResult>): Promise<Job | undefined> {
    if (this.running >= MAX_RUNNING) return undefined;
    const job: Job = { id: randomUUID(), vehicleId, ownerId, status: 'running' };
    await this.records.put(job, this.maxRunMs + JOB_KEEP_MS);
    this.running++;
    const ended = (update: Partial<Job>): void => {
      this.running--;
      this.records.put({ ...job, ...update, ended: this.now() }, JOB_KEEP_MS).catch(this.onError);
    };
    execute().then(
      (r) => ended({ status: 'done', result: { output: r.output, result: r.result } }),
      (err: unknown) => {
        const f = commandFailure(err);
        ended({ status: 'failed', failure: { code: f.code, message: f.message } });
      },
    );
    return job;
  }

  get(id: string): Promise<Job | undefined> {
    return this.records.get(id);
  }
}
