/**
 * `vts vehicle add --from-csv <file>`: bulk registration. The file has a header row naming the
 * columns `id`, `owner`, `password` and optionally `name` (any order, any case); every row is
 * checked as `vts vehicle add` checks its arguments. A bad row is reported on stderr with its line
 * number and skipped, the rest are added, `BATCH` rows per transaction (`store.addVehicles`).
 * Progress goes to stderr once a second for a long file. Exit 2 when any row was skipped.
 */
import { readFile } from 'node:fs/promises';
import { parseCsv } from '../core/csv-parse.js';
import { count } from '../core/count.js';
import { VtsError } from '../errors.js';
import type { NewVehicle, Store, VehicleType } from '../store/store.js';
import { auditCli } from '../util/audit.js';
import { say, validateCarPassword, validateUserName, validateVehicleId, validateVehicleName, withStore, type StoreCommandOptions } from './shared-options.js';

/** Rows per transaction. */
export const BATCH = 1000;

const COLUMNS = ['id', 'owner', 'password', 'name'] as const;
type Column = (typeof COLUMNS)[number];
const REQUIRED: readonly Column[] = ['id', 'owner', 'password'];

interface Row {
  line: number;
  id: string;
  owner: string;
  password: string;
  name: string;
}

/** The column of each header field; throws VTS_ERR_INVALID_INPUT for a header that is not one. */
function columnsOf(header: readonly string[]): Column[] {
  const cols = header.map((h) => h.trim().toLowerCase());
  const bad = cols.find((c) => !(COLUMNS as readonly string[]).includes(c));
  const missing = REQUIRED.filter((c) => !cols.includes(c));
  const twice = cols.find((c, k) => cols.indexOf(c) !== k);
  if (bad !== undefined || missing.length > 0 || twice !== undefined) {
    const why = bad !== undefined ? `unknown column ${JSON.stringify(bad)}` : twice !== undefined ? `column ${twice} given twice` : `no column ${missing.join(', ')}`;
    throw new VtsError('VTS_ERR_INVALID_INPUT', `the first row must name the columns id,owner,password[,name] (${why})`);
  }
  return cols as Column[];
}

/** One data row checked as `vehicle add` checks its arguments, or why not. */
function checkRow(line: number, fields: readonly string[], cols: readonly Column[]): Row | string {
  if (fields.length !== cols.length) return `${fields.length} fields where the header has ${cols.length}`;
  const get = (c: Column): string => {
    const k = cols.indexOf(c);
    return k < 0 ? '' : fields[k]!;
  };
  try {
    return {
      line,
      id: validateVehicleId(get('id')),
      owner: validateUserName(get('owner')),
      password: validateCarPassword(get('password')),
      name: validateVehicleName(get('name')),
    };
  } catch (err) {
    if (err instanceof VtsError) return err.code === 'VTS_ERR_INVALID_INPUT' ? (err.detail ?? err.message) : err.message;
    throw err;
  }
}

export interface CsvAddOptions extends StoreCommandOptions {
  fromCsv: string;
  type: VehicleType;
}

/** Reads, checks and adds the file's vehicles; sets the exit code 2 when a row was skipped. */
export async function addVehiclesFromCsv(o: CsvAddOptions): Promise<void> {
  const file = o.fromCsv;
  const text = file === '-' ? await readAll() : await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new VtsError('VTS_ERR_INVALID_INPUT', `cannot read ${file}: ${err.code ?? err.message}`);
  });
  const parsed = parseCsv(text);
  const head = parsed[0];
  if (!head) throw new VtsError('VTS_ERR_INVALID_INPUT', `${file} is empty: the first row must name the columns id,owner,password[,name]`);
  if ('error' in head) throw new VtsError('VTS_ERR_INVALID_INPUT', `line ${head.line}: ${head.error}`);
  const cols = columnsOf(head.fields);
  // reported in line order at the end (rows the store refuses are known last)
  const skipped: { line: number; why: string }[] = [];
  const skip = (line: number, why: string): void => void skipped.push({ line, why });
  const rows: Row[] = [];
  for (const r of parsed.slice(1)) {
    const row = 'error' in r ? r.error : checkRow(r.line, r.fields, cols);
    if (typeof row === 'string') skip(r.line, row);
    else rows.push(row);
  }
  let added = 0;
  await withStore(o, async (store) => {
    const owners = await ownerIds(store, rows);
    const started = Date.now();
    let said = started;
    for (let k = 0; k < rows.length; k += BATCH) {
      const batch: { row: Row; vehicle: NewVehicle }[] = [];
      for (const row of rows.slice(k, k + BATCH)) {
        const ownerId = owners.get(row.owner.toLowerCase());
        if (ownerId === undefined) skip(row.line, new VtsError('VTS_ERR_UNKNOWN_USER', row.owner).message);
        else batch.push({ row, vehicle: { id: row.id, ownerId, name: row.name, carPassword: row.password, type: o.type } });
      }
      const results = await store.addVehicles(batch.map((b) => b.vehicle));
      results.forEach((r, j) => {
        if (r.added) added++;
        else skip(batch[j]!.row.line, new VtsError(r.error, r.id).message);
      });
      const now = Date.now();
      if (now - said >= 1000 && k + BATCH < rows.length) {
        said = now;
        process.stderr.write(`vts: ${count(k + BATCH, 'row')} of ${count(rows.length, 'row')} done (${count(((k + BATCH) * 1000) / (now - started), 'row')}/s)\n`);
      }
    }
  });
  if (added > 0) auditCli('vehicle.add', { fromCsv: file, added, type: o.type });
  say(`${count(added, 'vehicle')} added from ${file}`);
  if (skipped.length > 0) {
    skipped.sort((a, b) => a.line - b.line);
    process.stderr.write(skipped.map((s) => `vts: line ${s.line}: ${s.why}: skipped\n`).join(''));
    process.stderr.write(`vts: ${count(skipped.length, 'row')} ${skipped.length === 1 ? 'was' : 'were'} not added (printed above)\n`);
    process.exitCode = 2;
  }
}

/** The ids of the rows' owners by lower-cased name (user names are unique in any case); unknown ones left out. */
async function ownerIds(store: Store, rows: readonly Row[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of new Set(rows.map((r) => r.owner.toLowerCase()))) {
    const owner = await store.getOwnerByName(name);
    if (owner) out.set(name, owner.id);
  }
  return out;
}

/** All of stdin (`--from-csv -`). */
async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
