/**
 * `vts import <mysql-url>`: brings a reference server's database (users, vehicles, their latest
 * messages, history, push subscriptions, API tokens, auto-provisioning) into vts's database
 * (src/import/). Read-only on the source; run again, it brings only what changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { auditCli } from '../util/audit.js';
import { addConfigOption, parseCountIn, resolveOptions } from '../util/config.js';
import { VtsError } from '../errors.js';
import { Importer } from '../import/importer.js';
import { ON_CONFLICT, PARTS, parseParts, type OnConflict } from '../import/parts.js';
import { Progress } from '../import/progress.js';
import { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_MS, openReference } from '../import/reference-db.js';
import { formatSummary } from '../import/report.js';
import { count } from '../core/count.js';
import { addStoreOptions, requireStoreOf, withStore, type StoreCommandOptions } from './shared-options.js';

interface ImportOptions extends StoreCommandOptions {
  dryRun?: boolean;
  only?: string;
  batchSize: number;
  onConflict: string;
  yes?: boolean;
  connectTimeout: number;
  queryTimeout: number;
}

const HELP = `
The source is read only. Run it once to try vts, and again right before switching: a second
run brings only what changed at the source. See "Moving from the reference server" in the README.

Exit status: 0 when every row was brought over (or skipped as expired, deleted or inactive),
2 when some rows broke a rule of vts or conflict with its data (each is printed, the rest was
imported), 1 when the import could not run.

A user or vehicle that vts has already and that did not come from this source (the quick start's
demo and DEMO1, say) is a conflict. --on-conflict skip (the default) leaves vts's as it is and the
source's out, with that owner's or vehicle's data, and prints each with what resolves it.
--on-conflict replace takes the source's over vts's: vts's user gets the source's name, mail and
password (keeping its other vehicles and its tokens), and vts's vehicle is removed with its
messages and history and the source's comes in its place. It asks first on a terminal; elsewhere
it needs --yes.

A URL without a password takes the MYSQL_PWD variable's.`;

function parseOnConflict(value: string): OnConflict {
  const v = value.trim().toLowerCase();
  if (!(ON_CONFLICT as readonly string[]).includes(v)) throw new VtsError('VTS_ERR_INVALID_INPUT', `--on-conflict must be ${ON_CONFLICT.join(' or ')}: ${JSON.stringify(value)}`);
  return v as OnConflict;
}

/** --on-conflict replace: asked on a terminal, else --yes. */
async function confirmReplace(yes: boolean): Promise<void> {
  if (yes) return;
  const what = "--on-conflict replace replaces vts's users and vehicles that conflict with the source's, removing those vehicles' messages and history";
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new VtsError('VTS_ERR_INVALID_INPUT', `${what}: add --yes to go ahead (or --dry-run to see which first)`, { whole: true });
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`vts: ${what}. Go ahead? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new VtsError('VTS_ERR_INVALID_INPUT', 'cancelled: nothing was imported', { whole: true });
  } finally {
    rl.close();
  }
}

export function registerImport(program: Command): void {
  const cmd = program
    .command('import')
    .description("bring a reference server's database (OVMS v2, MySQL/MariaDB) over into vts")
    .argument('<mysql-url>', 'mysql://user:password@host:3306/database, or mysql://user@localhost/database?socket=/run/mysqld/mysqld.sock')
    .option('--dry-run', 'read everything and report what an import would do, writing nothing')
    .option('--only <parts>', `only these parts, comma-separated: ${PARTS.join(', ')}`)
    .option('--on-conflict <what>', "a user or vehicle vts has already: skip (leave vts's) or replace (take the source's, with its data)", 'skip')
    .option('--yes', 'with --on-conflict replace: do not ask (needed when not on a terminal)');
  addConfigOption(cmd, '--batch-size <rows>', 'rows read and written at once', { default: 1000, parse: parseCountIn(1, 100_000) });
  addConfigOption(cmd, '--connect-timeout <s>', 'seconds to wait for the source database to take the connection', { default: CONNECT_TIMEOUT_MS / 1000, parse: parseCountIn(1, 3600) });
  addConfigOption(cmd, '--query-timeout <s>', 'seconds to wait for the source database to answer one query (a count, a batch of rows)', { default: QUERY_TIMEOUT_MS / 1000, parse: parseCountIn(1, 86_400) });
  addStoreOptions(cmd).addHelpText('after', HELP);
  cmd.action(async (url: string) => {
    const o = resolveOptions<ImportOptions>(cmd);
    const parts = o.only === undefined ? PARTS : parseParts(o.only);
    const onConflict = parseOnConflict(o.onConflict);
    const dryRun = o.dryRun === true;
    if (onConflict === 'replace' && !dryRun) await confirmReplace(o.yes === true);
    const source = await openReference(url, { connectMs: o.connectTimeout * 1000, queryMs: o.queryTimeout * 1000 });
    const err = process.stderr;
    const progress = new Progress({ write: (t) => err.write(t), isTTY: err.isTTY, columns: err.columns });
    progress.say(`vts: ${dryRun ? 'dry run: reading' : 'importing'} ${source.target.shown} (${parts.join(', ')})`);
    // a dry run for a vts that has no database yet: against an empty one, made for the run
    let target: StoreCommandOptions = o;
    let scratch: string | undefined;
    let conflicts = 0;
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
            onConflict,
          });
          const reports = await importer.run();
          conflicts = importer.conflicts;
          return reports;
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
        err.write(`vts: ${count(bad, 'row')} ${bad === 1 ? 'was' : 'were'} not imported: they broke a rule of vts or conflict with its data (printed above)\n`);
        process.exitCode = 2;
      }
      if (conflicts > 0 && onConflict === 'skip') {
        err.write(
          `vts: to take the source's users and vehicles over vts's (with their data): vts import ${source.target.shown} --on-conflict replace` +
            ` (the URL with its password, as you gave it; --dry-run first shows what it would do)\n`,
        );
      }
    } finally {
      await source.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  });
}
