/**
 * The database of a benchmark run: the SQLite file of the data folder, or, with `--database
 * postgres://…`, a schema of its own in that PostgreSQL database (`vts_bench_<pid>`, named by the
 * URL's search_path), dropped at the end.
 */
import pg from 'pg';

export interface BenchDatabase {
  /** The URL the store and `vts serve` get; undefined: SQLite in the data folder. */
  url: string | undefined;
  /** `vts serve` options for it. */
  args: string[];
  /** The run's PostgreSQL schema; undefined: SQLite. */
  schema: string | undefined;
  /** Removes what the run made (the schema). */
  drop(): Promise<void>;
}

/** `name`: a second database of the same run (its schema `vts_bench_<pid>_<name>`). */
export function benchDatabase(url: string | undefined, name?: string): BenchDatabase {
  if (!url) return { url: undefined, args: [], schema: undefined, drop: async () => undefined };
  const schema = `vts_bench_${process.pid}${name ? `_${name}` : ''}`;
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    args: ['--database', u.toString()],
    schema,
    drop: async () => {
      if (process.env.VTS_BENCH_KEEP_SCHEMA === '1') {
        process.stderr.write(`bench: schema ${schema} kept (VTS_BENCH_KEEP_SCHEMA=1)\n`);
        return;
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
