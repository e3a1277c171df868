/**
 * Background command jobs of `POST /api/command/<id>?async=1`: kept in memory for `GET
 * /api/command/<id>/<job>`, each for ten minutes after it ends, at most MAX_JOBS at once (the
 * oldest finished ones go first).
 */
import { randomUUID } from 'node:crypto';
import type { CommandResult } from '../../hub/command-service.js';
import { commandFailure, type HttpFailure } from './errors.js';

const MAX_JOBS = 10_000;
const KEEP_MS = 10 * 60_000;

export interface Job {
  id: string;
  vehicleId: string;
  ownerId: number;
  status: 'running' | 'done' | 'failed';
  result?: CommandResult;
  failure?: HttpFailure;
  ended?: number;
}

export class JobTable {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Starts a command as a job; undefined (and the command is not started) when the table is full
   * of running jobs.
   */
  start(vehicleId: string, ownerId: number, execute: () => Promise<CommandResult>): Job | undefined {
    this.sweep();
    if (this.jobs.size >= MAX_JOBS) return undefined;
    const job: Job = { id: randomUUID(), vehicleId, ownerId, status: 'running' };
    this.jobs.set(job.id, job);
    execute().then(
      (result) => Object.assign(job, { status: 'done', result, ended: this.now() }),
      (err: unknown) => Object.assign(job, { status: 'failed', failure: commandFailure(err), ended: this.now() }),
    );
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, job] of this.jobs) if (job.ended !== undefined && now - job.ended > KEEP_MS) this.jobs.delete(id);
    if (this.jobs.size < MAX_JOBS) return;
    for (const [id, job] of this.jobs) {
      if (job.ended !== undefined) this.jobs.delete(id);
      if (this.jobs.size < MAX_JOBS) return;
    }
  }
}
