/**
 * `vts import`: brings a reference server's database over, table by table (owners first, as
 * everything else refers to them), in key order, a batch at a time: read a batch (the next one is
 * read meanwhile), map it (src/import/source-rows.ts), write it (the store's ImportStore). Run
 * again, it writes only what changed at the source, and removes the tokens, subscriptions and
 * auto-provisioning records it brought over that are gone there since.
 */
import { hashApiToken } from '../auth/api-token.js';
import { hashPassword, verifyPassword } from '../auth/password.js';
import { IMPORT_TABLES, type ImportOrigin, type ImportStore, type ImportTable, type ImportValue, type OriginKind, type RowOutcome } from '../store/import-store.js';
import type { Store } from '../store/store.js';
import type { Progress } from './progress.js';
import type { ReferenceSource } from './reference-db.js';
import { count } from '../core/count.js';
import { PART_SOURCES, type OnConflict, type Part } from './parts.js';
import { TableReport } from './report.js';
import {
  autoProvisionOf,
  carMessageOf,
  digest,
  historicalOf,
  isSkip,
  ownerOf,
  subscriptionOf,
  tokenOf,
  vehicleKey,
  vehicleOf,
  type Mapping,
  type Skip,
  type SourceOwner,
  type SourcePassword,
  type SourceRow,
  type SourceVehicle,
} from './source-rows.js';

export interface ImportOptions {
  parts: readonly Part[];
  dryRun: boolean;
  /** Rows read and written at once. */
  batch: number;
  /** Epoch seconds: history expired by then is left behind. */
  now: number;
  progress: Progress;
  /** Passwords hashed (or checked) at once. */
  hashing: number;
  /**
   * A user or vehicle vts has already, not imported from this source: left as it is (`skip`), or
   * taken over by the source's, with its data (`replace`).
   */
  onConflict?: OnConflict;
}

/** The rows of one of the five tables of rows (not owners, vehicles). */
interface RowPart {
  target: ImportTable;
  /** Gone at the source since the last import: removed (tokens, subscriptions, auto-provisioning). */
  origin?: OriginKind;
  map(r: SourceRow): ImportValue[] | Skip;
}

/** Runs `fn` over `items`, at most `limit` at once, in order of the results. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class Importer {
  readonly reports: TableReport[] = [];
  /** Users and vehicles of vts left as they were (skip) or taken over (replace) in conflict with the source's. */
  conflicts = 0;
  private readonly imports: ImportStore;
  /** source owner id → vts owner id; source `<owner>/<VEHICLEID>` → vts vehicle id */
  private readonly owners = new Map<string, number>();
  private readonly vehicles = new Map<string, string>();
  /** The vts vehicles that came from this source (earlier or in this run): never replaced. */
  private readonly importedVehicles = new Set<string>();
  private placeholder = 0;
  /** The source owners that are active users there (this run). */
  private readonly activeOwners = new Set<string>();
  /** The origins of owners and vehicles as the run found them (read once). */
  private ownerOrigins?: Map<string, ImportOrigin>;
  private vehicleOrigins?: Map<string, ImportOrigin>;
  /** Vehicles a dry run would add (no two source owners get the same one). */
  private readonly dryVehicles = new Set<string>();
  private readonly mapping: Mapping = {
    owner: (o) => this.owners.get(String(o)),
    vehicle: (o, v) => this.vehicles.get(vehicleKey(o, v)),
  };

  constructor(
    private readonly source: ReferenceSource,
    private readonly store: Store,
    private readonly o: ImportOptions,
  ) {
    this.imports = store.imports;
  }

  async run(): Promise<TableReport[]> {
    // where earlier imports put owners and vehicles: for the parts that are not imported this time
    for (const origin of await this.imports.origins('owner')) this.owners.set(origin.sourceKey, Number(origin.targetKey));
    for (const origin of await this.imports.origins('vehicle')) {
      this.vehicles.set(origin.sourceKey, origin.targetKey);
      this.importedVehicles.add(origin.targetKey);
    }
    const rowParts: Partial<Record<Part, RowPart>> = {
      messages: { target: 'car_messages', map: (r) => carMessageOf(r, this.mapping) },
      history: { target: 'historical', map: (r) => historicalOf(r, this.mapping, this.o.now) },
      subscriptions: { target: 'push_subscriptions', origin: 'subscription', map: (r) => subscriptionOf(r, this.mapping) },
      tokens: { target: 'api_tokens', origin: 'token', map: (r) => tokenOf(r, this.mapping, hashApiToken) },
      autoprovision: { target: 'autoprovision', origin: 'autoprovision', map: (r) => autoProvisionOf(r, this.mapping) },
    };
    for (const part of this.o.parts) {
      const report = new TableReport(PART_SOURCES[part].table);
      this.reports.push(report);
      if (part === 'owners') await this.pass(part, report, (rows) => this.ownerBatch(rows, report), () => this.ownersGone(report));
      else if (part === 'vehicles') await this.pass(part, report, (rows) => this.vehicleBatch(rows, report));
      else await this.rowPass(part, rowParts[part]!, report);
    }
    return this.reports;
  }

  /** Reads the table a batch at a time (the next batch is read while one is written). */
  private async pass(part: Part, report: TableReport, batch: (rows: SourceRow[]) => Promise<void>, after?: () => Promise<void>): Promise<void> {
    const { table, key } = PART_SOURCES[part];
    this.o.progress.start(table, await this.source.count(table));
    const it = this.source.batches(table, key, this.o.batch)[Symbol.asyncIterator]();
    let next = it.next();
    for (;;) {
      const r = await next;
      if (r.done) break;
      next = it.next();
      report.read += r.value.length;
      await batch(r.value);
      this.o.progress.advance(r.value.length);
    }
    this.o.progress.finish();
    const more = report.unlisted();
    if (more) this.o.progress.say(more);
    if (after) await after();
  }

  private skipped(report: TableReport, s: Skip): void {
    const line = report.skip(s.skip, s.bad);
    if (line) this.o.progress.say(line);
  }

  // --- owners ---

  /** The hash to store for a source password, and the secret its origin keeps to see it change. */
  private async hashOf(p: SourcePassword): Promise<{ hash: string; secret: string }> {
    if (p.kind === 'drupal') return { hash: p.hash, secret: `drupal:${digest([p.hash])}` };
    if (p.kind === 'none') return { hash: '!', secret: `none:${digest([p.why])}` };
    const hash = await hashPassword(p.password);
    return { hash, secret: hash };
  }

  /** Whether the source password is still the one its origin's secret was made from. */
  private async sameSecret(p: SourcePassword, secret: string): Promise<boolean> {
    if (p.kind === 'drupal') return secret === `drupal:${digest([p.hash])}`;
    if (p.kind === 'none') return secret === `none:${digest([p.why])}`;
    return secret.startsWith('scrypt$') && verifyPassword(p.password, secret);
  }

  private async ownerBatch(rows: SourceRow[], report: TableReport): Promise<void> {
    const mapped = rows.map(ownerOf);
    for (const m of mapped) if (!isSkip(m)) this.activeOwners.add(m.sourceKey);
    // the passwords: checked against the last import's and hashed, several at once (scrypt)
    this.ownerOrigins ??= new Map((await this.imports.origins('owner')).map((o) => [o.sourceKey, o]));
    const origins = this.ownerOrigins;
    const secrets = await mapLimit(mapped, this.o.hashing, async (m) => {
      if (isSkip(m)) return undefined;
      const origin = origins.get(m.sourceKey);
      const current = origin ? await this.imports.owner(Number(origin.targetKey)) : undefined;
      const same = origin !== undefined && current !== undefined && (await this.sameSecret(m.password, origin.secret));
      return { origin: current ? origin : undefined, current, same, fresh: same ? undefined : await this.hashOf(m.password) };
    });
    for (let i = 0; i < mapped.length; i++) {
      const m = mapped[i]!;
      if (isSkip(m)) {
        this.skipped(report, m);
        continue;
      }
      await this.ownerRow(m, secrets[i]!, report);
    }
  }

  private async ownerRow(
    m: SourceOwner,
    s: { origin?: { fingerprint: string; secret: string }; current?: { id: number; name: string }; same: boolean; fresh?: { hash: string; secret: string } },
    report: TableReport,
  ): Promise<void> {
    const clash = await this.store.getOwnerByName(m.name);
    const notes = m.password.kind === 'none' ? ` (imported without a password: ${m.password.why}; set one with vts user passwd ${m.name})` : '';
    if (!s.current || !s.origin) {
      if (clash) {
        this.conflicts++;
        if (this.o.onConflict !== 'replace') {
          const skip =
            `a user ${clash.name} is in vts already and was not imported from owner ${m.sourceKey} of this source: left as it is, ` +
            `and the source's vehicles, messages and history of that owner with it (--on-conflict replace takes the source's user over vts's; ` +
            `or remove it first: vts user remove ${clash.name} --with-vehicles)`;
          this.skipped(report, { skip, bad: true });
          return;
        }
        // replace: vts's user becomes the source's (its name, mail, password), under its id
        if (!this.o.dryRun) {
          await this.imports.putOwner({ id: clash.id, name: m.name, mail: m.mail, passwordHash: s.fresh!.hash, rights: '*' }, { sourceKey: m.sourceKey, fingerprint: m.fingerprint, secret: s.fresh!.secret });
        }
        this.owners.set(m.sourceKey, clash.id);
        report.updated++;
        this.o.progress.say(`${this.o.dryRun ? 'would replace' : 'replaced'} user ${clash.name} of vts by owner ${m.sourceKey} of the source${notes}`);
        return;
      }
      const id = this.o.dryRun ? --this.placeholder : await this.imports.putOwner({ name: m.name, mail: m.mail, passwordHash: s.fresh!.hash, rights: '*' }, { sourceKey: m.sourceKey, fingerprint: m.fingerprint, secret: s.fresh!.secret });
      this.owners.set(m.sourceKey, id);
      report.added++;
      if (notes) this.o.progress.say(`owner ${m.name}${notes}`);
      return;
    }
    const id = s.current.id;
    this.owners.set(m.sourceKey, id);
    if (s.same && s.origin.fingerprint === m.fingerprint) {
      report.unchanged++;
      return;
    }
    if (clash && clash.id !== id) {
      this.skipped(report, { skip: `owner ${m.sourceKey} is now called ${m.name} at the source, and vts has another user of that name: left as ${s.current.name}`, bad: true });
      return;
    }
    if (!this.o.dryRun) {
      const fresh = s.same ? undefined : s.fresh!;
      await this.imports.putOwner(
        { id, name: m.name, mail: m.mail, passwordHash: fresh?.hash, rights: '*' },
        { sourceKey: m.sourceKey, fingerprint: m.fingerprint, secret: fresh ? fresh.secret : s.origin.secret },
      );
    }
    report.updated++;
    if (notes && !s.same) this.o.progress.say(`owner ${m.name}${notes}`);
  }

  /** Owners imported earlier that are no longer active at the source: said, and left. */
  private async ownersGone(report: TableReport): Promise<void> {
    const gone = (await this.imports.origins('owner')).filter((o) => !this.activeOwners.has(o.sourceKey));
    if (gone.length > 0) report.notes.push(`${count(gone.length, 'owner')} imported earlier ${gone.length === 1 ? 'is no longer an active user' : 'are no longer active users'} at the source: left in vts (vts user remove <name> --with-vehicles removes one)`);
  }

  // --- vehicles ---

  private async vehicleBatch(rows: SourceRow[], report: TableReport): Promise<void> {
    this.vehicleOrigins ??= new Map((await this.imports.origins('vehicle')).map((o) => [o.sourceKey, o]));
    const origins = this.vehicleOrigins;
    for (const r of rows) {
      const m = vehicleOf(r);
      if (isSkip(m)) this.skipped(report, m);
      else await this.vehicleRow(m, origins.get(m.sourceKey), report);
    }
  }

  private async vehicleRow(m: SourceVehicle, origin: { targetKey: string; fingerprint: string } | undefined, report: TableReport): Promise<void> {
    const ownerId = this.owners.get(m.sourceOwner);
    if (ownerId === undefined) {
      this.skipped(report, { skip: 'its owner was not imported', bad: false });
      return;
    }
    const here = await this.store.getVehicle(m.id);
    const ours = origin !== undefined && origin.targetKey === m.id;
    // only a vehicle that did not come from this source is replaced (not one of another source owner's)
    const replace = this.o.onConflict === 'replace' && !this.importedVehicles.has(m.id);
    if (!here && this.dryVehicles.has(m.id)) {
      this.skipped(report, { skip: `vehicle ${m.id} of owner ${m.sourceOwner} belongs to another owner at the source: left out`, bad: true });
      return;
    }
    if (here && !ours && (here.ownerId !== ownerId || replace)) {
      this.conflicts++;
      if (!replace) {
        const skip =
          `vehicle ${m.id} of owner ${m.sourceOwner} belongs to user ${here.ownerName} in vts: left as it is, and the source's messages and history of it stay out ` +
          `(--on-conflict replace takes the source's vehicle over vts's; or remove it first: vts vehicle remove ${m.id})`;
        this.skipped(report, { skip, bad: true });
        return;
      }
      // replace: vts's vehicle goes, with its data; the source's comes in its place
      if (!this.o.dryRun) await this.store.removeVehicle(m.id);
      this.o.progress.say(`${this.o.dryRun ? 'would replace' : 'replaced'} vehicle ${m.id} of user ${here.ownerName} in vts (with its messages and history) by the source's`);
    }
    this.vehicles.set(m.sourceKey, m.id);
    this.importedVehicles.add(m.id);
    if (here && ours && here.ownerId === ownerId && origin.fingerprint === m.fingerprint) {
      report.unchanged++;
      return;
    }
    if (this.o.dryRun) this.dryVehicles.add(m.id);
    else {
      const { sourceKey, fingerprint, sourceOwner: _, ...v } = m;
      await this.imports.putVehicle({ ...v, ownerId }, { sourceKey, fingerprint, secret: '' });
    }
    if (here) report.updated++;
    else report.added++;
  }

  // --- the other tables ---

  private async rowPass(part: Part, p: RowPart, report: TableReport): Promise<void> {
    const origins = p.origin ? new Map((await this.imports.origins(p.origin)).map((o) => [o.sourceKey, o.targetKey])) : undefined;
    const seen = new Set<string>();
    await this.pass(part, report, async (rows) => {
      const good: ImportValue[][] = [];
      for (const r of rows) {
        const m = p.map(r);
        if (isSkip(m)) this.skipped(report, m);
        else good.push(m);
      }
      const outcomes = await this.write(p.target, good, report);
      if (!origins || !p.origin) return;
      const fresh = [];
      for (let i = 0; i < good.length; i++) {
        if (outcomes[i] === undefined) continue;
        const key = JSON.stringify(good[i]!.slice(0, keyLength(p.target)));
        seen.add(key);
        if (origins.get(key) !== key) fresh.push({ sourceKey: key, targetKey: key, fingerprint: '', secret: '' });
      }
      if (!this.o.dryRun) await this.imports.putOrigins(p.origin, fresh);
    });
    if (!origins || !p.origin) return;
    // imported earlier, gone at the source since (or its owner is): removed here too
    const gone = [...origins.keys()].filter((k) => !seen.has(k)).map((k) => ({ sourceKey: k, key: JSON.parse(k) as ImportValue[] }));
    if (gone.length === 0) return;
    report.removed += this.o.dryRun ? gone.length : await this.imports.removeImported(p.origin, p.target, gone);
  }

  /**
   * Writes a batch; when the batch fails, each row alone, so that one row the store refuses is
   * reported and skipped (undefined outcome), not the batch.
   */
  private async write(target: ImportTable, rows: ImportValue[][], report: TableReport): Promise<(RowOutcome | undefined)[]> {
    let outcomes: (RowOutcome | undefined)[];
    try {
      outcomes = await this.imports.putRows(target, rows, this.o.dryRun);
    } catch {
      outcomes = [];
      for (const row of rows) {
        try {
          outcomes.push((await this.imports.putRows(target, [row], this.o.dryRun))[0]);
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          this.skipped(report, { skip: `${JSON.stringify(row.slice(0, keyLength(target)))} was refused by the database: ${why}`, bad: true });
          outcomes.push(undefined);
        }
      }
    }
    for (const o of outcomes) {
      if (o === 'added') report.added++;
      else if (o === 'updated') report.updated++;
      else if (o === 'unchanged') report.unchanged++;
      else if (o === 'newer-here') report.newerHere++;
    }
    return outcomes;
  }
}

const keyLength = (t: ImportTable): number => IMPORT_TABLES[t].key.length;
