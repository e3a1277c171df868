/**
 * `vts import` of a large history: a reference database on the MariaDB of this machine with
 * `rows` history records (not expired) across 100 vehicles, imported by the built `vts import`
 * into a new SQLite file (or --database): time, rows per second, and the importer's memory (its
 * resident set sampled every 250 ms: flat when the rows stream).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { peakRssOf, rssOf } from './lib/proc.js';

export interface ImportBenchResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** Resident set (MB) at a quarter, half, three quarters and the end of the run; the peak. */
  rssMb: number[];
  peakRssMb: number;
  fillSeconds: number;
}

const MARIADB_URL = process.env.VTS_TEST_MARIADB ?? 'mysql://root@127.0.0.1:3306';
const SCHEMA = readFileSync(new URL('../test/fixtures/reference/ovms_server.sql', import.meta.url), 'utf8');

export async function runImportBench(rows: number, databaseArgs: string[] = []): Promise<ImportBenchResult> {
  const database = `vts_bench_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({ uri: MARIADB_URL, multipleStatements: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-import-bench-'));
  try {
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8`);
    const db = await createConnection({ uri: `${MARIADB_URL}/${database}`, multipleStatements: true });
    const filled = performance.now();
    await db.query(SCHEMA);
    await db.query("INSERT INTO ovms_owners (owner, name, mail, pass, status) VALUES (1, 'import-bench', '', 'bench-password', 1)");
    await db.query("INSERT INTO ovms_cars (vehicleid, owner, carpass) SELECT CONCAT('IMPORT', seq), 1, 'car-password' FROM seq_0_to_99");
    await db.query(
      `INSERT INTO ovms_historicalmessages (owner, vehicleid, h_timestamp, h_recordtype, h_recordnumber, h_data, h_expires)
       SELECT 1, CONCAT('IMPORT', seq % 100), '2026-01-01' + INTERVAL (seq DIV 100) SECOND, '*-LOG-Trip', seq % 7,
         CONCAT('12.5,3.2,', seq, ',51.5123,-0.1234,90,20'), '2099-01-01'
       FROM seq_0_to_${rows - 1}`,
    );
    await db.end();
    const fillSeconds = (performance.now() - filled) / 1000;
    const started = performance.now();
    const child = spawn(process.execPath, ['dist/cli/main.js', 'import', `${MARIADB_URL}/${database}`, '--data-dir', dataDir, ...databaseArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    // the resident set over the run: flat when the rows stream
    const samples: number[] = [];
    let peak = 0;
    const sample = setInterval(() => {
      const rss = rssOf(child.pid!);
      if (rss > 0) samples.push(rss);
      peak = Math.max(peak, peakRssOf(child.pid!));
    }, 100);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(sample);
    if (code !== 0) throw new Error(`vts import exited with ${code}: ${stderr.slice(-2000)}`);
    const all = rows.toLocaleString('en-US');
    if (!new RegExp(`^ovms_historicalmessages\\s+${all}\\s+${all}\\s`, 'm').test(stdout)) throw new Error(`not every history row was added:\n${stdout}`);
    const seconds = (performance.now() - started) / 1000;
    const mb = (b: number): number => Math.round(b / 1048576);
    const at = (f: number): number => mb(samples[Math.min(samples.length - 1, Math.floor(samples.length * f))] ?? 0);
    return { rows, seconds, rowsPerSecond: rows / seconds, rssMb: [at(0.25), at(0.5), at(0.75), at(1)], peakRssMb: mb(peak), fillSeconds };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function reportImport(r: ImportBenchResult): string {
  return [
    `vts import: ${r.rows.toLocaleString('en-US')} history rows (100 vehicles; the source filled in ${r.fillSeconds.toFixed(1)} s)`,
    `  imported in ${r.seconds.toFixed(1)} s: ${Math.round(r.rowsPerSecond).toLocaleString('en-US')} rows/s`,
    `  importer memory (RSS) at 25/50/75/100 % of the run: ${r.rssMb.join(' / ')} MB, peak ${r.peakRssMb} MB`,
  ].join('\n');
}
