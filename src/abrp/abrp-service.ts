/**
 * ABRP live telemetry (issue 29, docs/abrp.md): hears every record of the cars (the hub's
 * car-data observers, on the node the car is connected to, so one node sends for a vehicle), keeps
 * each vehicle's latest `S`, `D` and `L`, and sends the telemetry of a linked vehicle to ABRP on
 * the module plugin's policy (src/core/abrp/policy.ts), with back-off after failures; a token ABRP
 * refuses stops the link.
 *
 * What must survive a restart or a failover lives in the link's row (src/store/abrp-store.ts): the
 * last telemetry sent and when, the failures and the time of the next try. The row is read again
 * before every send, so a link removed or replaced anywhere is seen at once. Which vehicles are
 * linked is one read for the whole fleet, made again every `linkCacheSeconds` (a link made on
 * another node starts within that time); the cars of vehicles without a link cost no read at all.
 * Sends run at most `concurrency` at once; a send that cannot start waits for the next tick (every
 * second).
 *
 * The token is sealed in the row (src/core/crypto/sealed-secret.ts) and opened only to send: it is
 * never logged, stored in clear, or put into an error.
 */
import type { Logger } from 'pino';
import { backoffSeconds, decide, type Sent } from '../core/abrp/policy.js';
import { buildTlm, tlmJson, type AbrpTlm, type LatestRecords } from '../core/abrp/telemetry.js';
import { seal, unseal } from '../core/crypto/sealed-secret.js';
import { VtsError } from '../errors.js';
import type { CarDataEvent, CarDataObserver } from '../hub/hub.js';
import type { AbrpLink } from '../store/abrp-store.js';
import { logStoreFailure } from '../store/outage.js';
import type { Store } from '../store/store.js';
import { sendTlm, type SenderConfig } from './sender.js';

/** ABRP's telemetry API. */
export const DEFAULT_ABRP_URL = 'https://api.iternio.com';

export interface AbrpSettings {
  /** The operator's ABRP API key (`--abrp-api-key`); none: nothing is sent and nothing can be linked. */
  apiKey?: string;
  /** The API's base (`--abrp-url`), default DEFAULT_ABRP_URL. */
  url?: string;
  /** The key that seals the tokens (src/abrp/token-key.ts); null when there is no API key. */
  tokenKey: Buffer | null;
  /** Time one send may take (ms); default 10 s. */
  timeoutMs?: number;
  /** Sends at once, over all vehicles; default 8. */
  concurrency?: number;
  /** Seconds a vehicle's link (or its absence) is believed without reading it again; default 60. */
  linkCacheSeconds?: number;
  /** Seconds without a record after which a vehicle leaves memory; default 3600. */
  idleSeconds?: number;
  /** The tick (ms) that sends what waited; default 1000. */
  tickMs?: number;
}

interface Track {
  readonly vehicleId: string;
  latest: LatestRecords;
  /** The data's time (the last record's). */
  time: number;
  /** The server's time when the last record was heard. */
  heard: number;
  /** Records heard, and how many of them the last send (or look-up) covered. */
  version: number;
  sentVersion: number;
  /** The link as last read: undefined not read yet, null none. */
  link: AbrpLink | null | undefined;
  checkedAt: number;
  sent: Sent | null;
  busy: boolean;
}

const LIVE = new Set(['S', 'D', 'L']);

/** The telemetry last sent, from the row's JSON (the link's own writing). */
function sentOf(link: AbrpLink): Sent | null {
  if (link.lastSent === null || link.lastTlm === '') return null;
  try {
    return { tlm: JSON.parse(link.lastTlm) as AbrpTlm, at: link.lastSent };
  } catch {
    return null;
  }
}

export class AbrpService {
  private readonly tracks = new Map<string, Track>();
  private readonly sender: SenderConfig | null;
  private readonly concurrency: number;
  private readonly linkCacheSeconds: number;
  private readonly idleSeconds: number;
  private readonly tickMs: number;
  private readonly running = new Set<Promise<void>>();
  /** The linked vehicles as last listed (null: not yet), when, and the links made or removed here since the listing began. */
  private linked: Set<string> | null = null;
  private linkedAt = 0;
  private listing = false;
  private readonly changes = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Cuts the sends under way short at close (a send may take `timeoutMs`, longer than a shutdown may). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly seconds: () => number,
    private readonly settings: AbrpSettings,
  ) {
    this.sender =
      settings.apiKey && settings.tokenKey
        ? { url: (settings.url ?? DEFAULT_ABRP_URL).replace(/\/+$/, ''), apiKey: settings.apiKey, timeoutMs: settings.timeoutMs ?? 10_000 }
        : null;
    this.concurrency = settings.concurrency ?? 8;
    this.linkCacheSeconds = Math.max(1, settings.linkCacheSeconds ?? 60);
    this.idleSeconds = settings.idleSeconds ?? 3600;
    this.tickMs = settings.tickMs ?? 1000;
  }

  /** Whether the operator configured ABRP (an API key): else links cannot be made and nothing is sent. */
  get configured(): boolean {
    return this.sender !== null;
  }

  /** The observer to register with `hub.onCarData`; starts the tick. */
  observer(): CarDataObserver {
    if (!this.timer && !this.closed) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
    }
    return (event) => this.hear(event);
  }

  /** Takes one committed record: a live `S`, `D` or `L` updates the vehicle's telemetry. */
  hear(event: CarDataEvent): void {
    if (this.closed || !this.sender || event.historical || !LIVE.has(event.code)) return;
    const track = this.track(event.vehicleId);
    if (event.code === 'S') track.latest.s = event.data;
    else if (event.code === 'D') track.latest.d = event.data;
    else track.latest.l = event.data;
    track.time = Math.max(track.time, event.time);
    track.heard = this.seconds();
    track.version++;
    this.consider(track);
  }

  /**
   * Links the vehicle with the owner's ABRP user token (sealed before it is stored), or links it
   * again: the first telemetry goes at once.
   * @throws VtsError VTS_ERR_ABRP_OFF without --abrp-api-key
   */
  async link(vehicleId: string, ownerId: number, token: string): Promise<AbrpLink> {
    if (!this.sender || !this.settings.tokenKey) throw new VtsError('VTS_ERR_ABRP_OFF', 'the operator has not set --abrp-api-key');
    const vid = vehicleId.toUpperCase();
    const link = await this.store.abrp.putLink(vid, ownerId, seal(this.settings.tokenKey, token, vid), this.seconds());
    this.noteLinked(vid, true);
    const track = this.tracks.get(vid);
    if (track) {
      track.link = link;
      track.checkedAt = this.seconds();
      track.sent = null;
      this.consider(track);
    }
    return link;
  }

  /** Removes the vehicle's link: nothing more is sent. */
  async unlink(vehicleId: string): Promise<boolean> {
    const vid = vehicleId.toUpperCase();
    const removed = await this.store.abrp.removeLink(vid);
    this.noteLinked(vid, false);
    const track = this.tracks.get(vid);
    if (track) {
      track.link = null;
      track.checkedAt = this.seconds();
    }
    return removed;
  }

  /**
   * Sends what is due (data that waited for its interval, a retry after a back-off), lists the
   * linked vehicles again when the listing is old, and forgets idle vehicles.
   */
  tick(): void {
    if (this.closed) return;
    const now = this.seconds();
    if (this.linked === null || now - this.linkedAt >= this.linkCacheSeconds) this.listLinked();
    for (const track of this.tracks.values()) {
      if (track.busy) continue;
      if (now - track.heard >= this.idleSeconds) {
        this.tracks.delete(track.vehicleId);
        continue;
      }
      if (!this.linked?.has(track.vehicleId)) continue;
      const link = track.link;
      const retry = link?.state === 'failing' && link.retryAt !== null && now >= link.retryAt;
      if (track.version !== track.sentVersion || retry || (link === undefined && track.version > 0)) this.consider(track);
    }
  }

  /** Resolves once the sends and look-ups under way are done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Stops sending and waits for the sends under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort();
    await this.settled();
  }

  private track(vehicleId: string): Track {
    let track = this.tracks.get(vehicleId);
    if (!track) {
      track = { vehicleId, latest: {}, time: 0, heard: 0, version: 0, sentVersion: 0, link: undefined, checkedAt: 0, sent: null, busy: false };
      this.tracks.set(vehicleId, track);
    }
    return track;
  }

  private noteLinked(vid: string, linked: boolean): void {
    this.changes.set(vid, linked);
    if (linked) this.linked?.add(vid);
    else this.linked?.delete(vid);
  }

  /** Lists the linked vehicles (one at a time), then looks at the vehicles heard that are linked. */
  private listLinked(): void {
    if (this.listing || this.closed || !this.sender) return;
    this.listing = true;
    this.changes.clear();
    const done = this.store.abrp
      .listLinked()
      .then((ids) => {
        const linked = new Set(ids);
        // a link made or removed here while the list was read is as this node knows it
        for (const [vid, yes] of this.changes) if (yes) linked.add(vid);
        else linked.delete(vid);
        this.linked = linked;
        this.linkedAt = this.seconds();
      })
      .catch((err: unknown) => logStoreFailure(this.log, 'error', err, {}, 'ABRP: listing the linked vehicles failed'))
      .finally(() => {
        this.listing = false;
        this.running.delete(done);
        for (const track of this.tracks.values()) if (this.linked?.has(track.vehicleId) && track.version > 0) this.consider(track);
      });
    this.running.add(done);
  }

  /** Runs `step` for the track (one at a time per vehicle), counted in `running`; then `next`. */
  private run(track: Track, step: () => Promise<void>, next?: () => void): void {
    track.busy = true;
    const done = step()
      .catch((err: unknown) => logStoreFailure(this.log, 'error', err, { vehicle: track.vehicleId }, 'ABRP: reading or writing the link failed'))
      .finally(() => {
        track.busy = false;
        this.running.delete(done);
        next?.();
      });
    this.running.add(done);
  }

  /** Sends the vehicle's telemetry if the link and the policy say so now. */
  private consider(track: Track): void {
    if (this.closed || track.busy || !this.sender) return;
    if (this.linked === null) return this.listLinked();
    if (!this.linked.has(track.vehicleId)) {
      // not linked: no read of its own
      track.link = null;
      track.sentVersion = track.version;
      return;
    }
    const now = this.seconds();
    if (!track.link || now - track.checkedAt >= this.linkCacheSeconds) {
      this.run(
        track,
        async () => {
          const row = (await this.store.abrp.getLink(track.vehicleId)) ?? null;
          this.adopt(track, row);
          // removed since the listing: not looked at again until it is listed
          if (!row) this.linked?.delete(track.vehicleId);
        },
        () => this.consider(track),
      );
      return;
    }
    const link = track.link;
    if (!link || link.state === 'refused' || track.version === 0) return;
    if (link.state === 'failing' && link.retryAt !== null && now < link.retryAt) return;
    const tlm = buildTlm(track.latest, track.time);
    const retry = link.state === 'failing';
    if (!retry && !decide(track.sent, tlm, now).send) return;
    if (this.running.size >= this.concurrency) return;
    const version = track.version;
    this.run(track, () => this.send(track, tlm, version));
  }

  /**
   * The link as read from the store: a new link (another token) starts afresh from its row; the
   * same link keeps what this node sent unless the row knows a later send (another node's, the
   * car having moved).
   */
  private adopt(track: Track, row: AbrpLink | null): void {
    const before = track.link;
    track.link = row;
    track.checkedAt = this.seconds();
    if (!row) return;
    const stored = sentOf(row);
    if (!before || before.token !== row.token) track.sent = stored;
    else if (stored && (!track.sent || stored.at > track.sent.at)) track.sent = stored;
  }

  /** One send: the row read again, the token opened, the answer recorded. */
  private async send(track: Track, tlm: AbrpTlm, version: number): Promise<void> {
    const sender = this.sender!;
    const vid = track.vehicleId;
    const row = (await this.store.abrp.getLink(vid)) ?? null;
    this.adopt(track, row);
    if (!row) this.linked?.delete(vid);
    if (!row || row.state === 'refused') return;
    if (row.state === 'failing' && row.retryAt !== null && this.seconds() < row.retryAt) return;
    const token = unseal(this.settings.tokenKey!, row.token, vid);
    const json = tlmJson(tlm);
    const outcome = token === null
      ? { kind: 'retry' as const, reason: "the stored token cannot be opened with this server's token key (--abrp-token-key): check the key, or link the vehicle again" }
      : await sendTlm(sender, token, json, this.stopping.signal);
    // cut short by the shutdown: not a failure of ABRP's (the next node or start sends again)
    if (this.closed && outcome.kind !== 'ok') return;
    const at = this.seconds();
    if (outcome.kind === 'ok') {
      if (await this.store.abrp.recordSent(vid, row.token, at, json)) {
        track.sent = { tlm, at };
        track.sentVersion = Math.max(track.sentVersion, version);
        track.link = { ...row, state: 'ok', lastSent: at, lastTlm: json, failures: 0, retryAt: null };
      }
      return;
    }
    const failures = row.failures + 1;
    const failure =
      outcome.kind === 'refused'
        ? { state: 'refused' as const, error: outcome.reason, time: at, failures, retryAt: null }
        : { state: 'failing' as const, error: outcome.reason, time: at, failures, retryAt: at + backoffSeconds(failures, outcome.retryAfter) };
    if (await this.store.abrp.recordFailure(vid, row.token, failure)) {
      track.link = { ...row, state: failure.state, lastError: failure.error, lastErrorTime: at, failures, retryAt: failure.retryAt };
    }
    if (outcome.kind === 'refused') this.log.warn({ vehicle: vid, reason: outcome.reason }, 'ABRP refused the token: the link is stopped');
    else this.log.warn({ vehicle: vid, reason: outcome.reason, failures, retryAt: failure.retryAt }, 'ABRP: sending failed; trying again later');
  }
}
