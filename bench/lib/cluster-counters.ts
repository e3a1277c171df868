/**
 * The counters of the services a cluster shares, read twice to give what happened in a window:
 * Redis' `INFO stats` (total_commands_processed) and `INFO commandstats` (calls per command), and
 * PostgreSQL's pg_stat_database (commits, rows of the whole database) and pg_stat_user_tables (rows
 * of the run's schema alone). Redis counts the commands a Lua script runs as well as the script's
 * own call. PostgreSQL's backends report their counts when they go idle, at most once a second and
 * within 10 s or so: a window's figures are shifted by that much, not lost.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Redis } from 'ioredis';
import pg from 'pg';

export interface RedisCounts {
  /** total_commands_processed, without the INFO calls that read it. */
  total: number;
  /** Calls by command (lower case, `info` left out). */
  calls: Map<string, number>;
  connectedClients: number;
}

export async function readRedis(redis: Redis): Promise<RedisCounts> {
  const text = (await redis.call('INFO', 'stats', 'commandstats', 'clients')) as string;
  const field = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  const calls = new Map<string, number>();
  let info = 0;
  for (const m of text.matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)) {
    if (m[1] === 'info') info = Number(m[2]);
    else calls.set(m[1]!, Number(m[2]));
  }
  return { total: field('total_commands_processed') - info, calls, connectedClients: field('connected_clients') };
}

export interface RedisDelta {
  total: number;
  /** Calls by command, most first (only those called in the window). */
  top: [string, number][];
}

export function redisDelta(a: RedisCounts, b: RedisCounts): RedisDelta {
  const top: [string, number][] = [];
  for (const [cmd, n] of b.calls) {
    const d = n - (a.calls.get(cmd) ?? 0);
    if (d > 0) top.push([cmd, d]);
  }
  return { total: b.total - a.total, top: top.sort((x, y) => y[1] - x[1]) };
}

export interface PgCounts {
  commits: number;
  rollbacks: number;
  /** Rows inserted, updated and deleted in the whole database. */
  inserted: number;
  updated: number;
  deleted: number;
  /** The same in the run's schema alone. */
  schema: { inserted: number; updated: number; deleted: number };
  /** Rows written in each table of the run's schema. */
  tables: Map<string, number>;
}

/** Reads the counters with a client of its own (`url`: the database; `schema`: the run's). */
export class PgCounters {
  private readonly client: pg.Client;
  /** The transactions of this client's own reads (two a reading), taken off the commits. */
  private reads = 0;

  constructor(url: string, private readonly schema: string) {
    this.client = new pg.Client({ connectionString: url });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async read(): Promise<PgCounts> {
    const db = await this.client.query<Record<string, string>>(
      'SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()',
    );
    const own = await this.client.query<{ relname: string; ins: string; upd: string; del: string }>(
      'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables WHERE schemaname = $1',
      [this.schema],
    );
    this.reads += 2;
    const r = db.rows[0]!;
    const s = { ins: 0, upd: 0, del: 0 };
    const tables = new Map<string, number>();
    for (const t of own.rows) {
      s.ins += Number(t.ins);
      s.upd += Number(t.upd);
      s.del += Number(t.del);
      tables.set(t.relname, Number(t.ins) + Number(t.upd) + Number(t.del));
    }
    return {
      commits: Number(r.xact_commit) - this.reads,
      rollbacks: Number(r.xact_rollback),
      inserted: Number(r.tup_inserted),
      updated: Number(r.tup_updated),
      deleted: Number(r.tup_deleted),
      schema: { inserted: s.ins, updated: s.upd, deleted: s.del },
      tables,
    };
  }

  /**
   * The client backends of the database other than this client's and those of the processes
   * `pids` (e.g. another benchmark's server writing to the same database meanwhile).
   */
  async others(pids: readonly number[]): Promise<number> {
    const ours = localPortsOf(pids);
    const res = await this.client.query<{ client_port: number | null }>(
      "SELECT client_port FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    this.reads++;
    return res.rows.filter((r) => r.client_port === null || !ours.has(r.client_port)).length;
  }

  end(): Promise<void> {
    return this.client.end();
  }
}

/** The local ports of the TCP sockets of these processes (Linux: their descriptors and /proc/net/tcp*). */
function localPortsOf(pids: readonly number[]): Set<number> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' }));
        if (m) inodes.add(m[1]!);
      } catch {
        /* closed meanwhile */
      }
    }
  }
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

export interface PgDelta {
  commits: number;
  rollbacks: number;
  /** Rows written (inserted + updated + deleted) in the database, and in the run's schema. */
  rows: number;
  schemaRows: number;
  schema: { inserted: number; updated: number; deleted: number };
  /** Rows written by table of the run's schema, most first (only those written). */
  tables: [string, number][];
}

export function pgDelta(a: PgCounts, b: PgCounts): PgDelta {
  const schema = { inserted: b.schema.inserted - a.schema.inserted, updated: b.schema.updated - a.schema.updated, deleted: b.schema.deleted - a.schema.deleted };
  return {
    commits: b.commits - a.commits,
    rollbacks: b.rollbacks - a.rollbacks,
    rows: b.inserted - a.inserted + (b.updated - a.updated) + (b.deleted - a.deleted),
    schemaRows: schema.inserted + schema.updated + schema.deleted,
    schema,
    tables: [...b.tables]
      .map(([t, n]): [string, number] => [t, n - (a.tables.get(t) ?? 0)])
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1]),
  };
}
