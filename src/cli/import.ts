/**
 * `vts import <mysql-url>`: brings a reference server's database (users, vehicles, their latest
 * messages, history, push subscriptions, API tokens, auto-provisioning) into vts's database
 * (src/import/). Read-only on the source; run again, it brings only what changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { auditCli } from '../audit.js';
import { addConfigOption, parseCountIn, resolveOptions } from '../config.js';
import { Importer, PARTS, parseParts } from '../import/importer.js';
import { Progress } from '../import/progress.js';
import { openReference } from '../import/reference-db.js';
import { formatSummary } from '../import/report.js';
import { addStoreOptions, requireStoreOf, withStore, type StoreCommandOptions } from './shared-options.js';

interface ImportOptions extends StoreCommandOptions {
  dryRun?: boolean;
  only?: string;
  batchSize: number;
}

const HELP = `
The source is read only. Run it once to try vts, and again right before switching: a second
run brings only what changed at the source. See "Moving from the reference server" in the README.

Exit status: 0 when every row was brought over (or skipped as expired, deleted or inactive),
2 when some rows broke a rule of vts or conflict with its data (each is printed, the rest was
imported), 1 when the import could not run.

A URL without a password takes the MYSQL_PWD variable's.`;

export function registerImport(program: Command): void {
  const cmd = program
    .command('import')
    .description("bring a reference server's database (OVMS v2, MySQL/MariaDB) over into vts")
    .argument('<mysql-url>', 'mysql://user:password@host:3306/database, or mysql://user@localhost/database?socket=/run/mysqld/mysqld.sock')
    .option('--dry-run', 'read everything and report what an import would do, writing nothing')
    .option('--only <parts>', `only these parts, comma-separated: ${PARTS.join(', ')}`);
  addConfigOption(cmd, '--batch-size <rows>', 'rows read and written at once', { default: 1000, parse: parseCountIn(1, 100_000) });
  addStoreOptions(cmd).addHelpText('after', HELP);
  cmd.action(async (url: string) => {
    const o = resolveOptions<ImportOptions>(cmd);
    const parts = o.only === undefined ? PARTS : parseParts(o.only);
    const source = await openReference(url);
    const dryRun = o.dryRun === true;
    const err = process.stderr;
    const progress = new Progress({ write: (t) => err.write(t), isTTY: err.isTTY, columns: err.columns });
    progress.say(`vts: ${dryRun ? 'dry run: reading' : 'importing'} ${source.target.shown} (${parts.join(', ')})`);
    // a dry run for a vts that has no database yet: against an empty one, made for the run
    let target: StoreCommandOptions = o;
    let scratch: string | undefined;
    if (dryRun && o.database === undefined && !(await requireStoreOf(o).then(() => true, () => false))) {
      scratch = mkdtempSync(join(tmpdir(), 'vts-import-dry-'));
      target = { ...o, dataDir: scratch };
      progress.say(`vts: no vts database in ${o.dataDir} yet: everything would be new`);
    }
    try {
      const reports = await withStore(
        target,
        async (store) => {
          const importer = new Importer(source, store, {
            parts,
            dryRun,
            batch: o.batchSize,
            now: Math.floor(Date.now() / 1000),
            progress,
            hashing: Math.min(4, availableParallelism()),
          });
          return importer.run();
        },
        { create: !dryRun || scratch !== undefined },
      );
      process.stdout.write(formatSummary(reports, dryRun));
      if (!dryRun) {
        const total = (k: 'added' | 'updated' | 'removed'): number => reports.reduce((sum, r) => sum + r[k], 0);
        auditCli('import', { source: source.target.shown, added: total('added'), updated: total('updated'), removed: total('removed') });
      }
      const bad = reports.reduce((sum, r) => sum + r.badCount, 0);
      if (dryRun) process.stdout.write('dry run: nothing was written\n');
      if (bad > 0) {
        err.write(`vts: ${bad} row(s) were not imported: they broke a rule of vts or conflict with its data (printed above)\n`);
        process.exitCode = 2;
      }
    } finally {
      await source.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  });
}
