/**
 * Works off the outbox: per provider, claims due deliveries from the store, sends them with at
 * most `concurrency` requests in flight and a timeout per attempt, and records each outcome. Each
 * channel has its own loop and its own slots, so a provider that is slow or down holds up only
 * its own deliveries. The retry policy lives here: exponential back-off from `retryFirstSeconds`
 * (doubling, at most `retryMaxSeconds`, at least what `Retry-After` asked), and giving up once
 * the next try would come more than `giveUpSeconds` after the notification was raised (or, held
 * for the owner's quiet hours, after they ended). A service
 * that asks to slow down (429, 503) gets nothing more for a while, its other deliveries put off
 * unsent (src/push/endpoint-holds.ts): the whole channel, or one target's server.
 */
import type { Logger } from 'pino';
import type { Channel } from '../core/push/channels.js';
import { logStoreFailure } from '../store/outage.js';
import type { AttemptOutcome, DeliveryItem, FinishedAttempt, PushStore } from '../store/push-store.js';
import { EndpointHolds } from './endpoint-holds.js';
import type { PushProvider, SendResult } from './provider.js';

export interface DispatcherOptions {
  /** Who claims (the node id in a cluster): claims are held in its name. */
  claimer: string;
  /** Requests in flight per provider. */
  concurrency: number;
  /** Seconds one attempt may take. */
  timeoutSeconds: number;
  /** Seconds before the first retry; doubles with each attempt. */
  retryFirstSeconds: number;
  /** The longest wait between two tries. */
  retryMaxSeconds: number;
  /** Seconds after the notification when a delivery is given up. */
  giveUpSeconds: number;
  /** Seconds after Expo accepted a message when its receipt is checked (and between checks). */
  receiptDelaySeconds: number;
  /** How often each loop looks for due deliveries (ms; new notifications wake it at once). */
  pollMs: number;
  /**
   * How long a stop lets the attempts in flight end and be recorded (ms) before it aborts the
   * rest (tried again after the restart: sent twice if the service got them).
   */
  stopWaitMs: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, 'claimer'> = {
  concurrency: 16,
  timeoutSeconds: 15,
  retryFirstSeconds: 10,
  retryMaxSeconds: 1800,
  giveUpSeconds: 6 * 3600,
  receiptDelaySeconds: 60,
  pollMs: 1000,
  // within the 4.5 s `vts serve` gives its whole shutdown
  stopWaitMs: 2500,
};

/** How many deliveries one claim takes at most (a provider's batches are cut from them). */
const MAX_CLAIM = 200;
/**
 * Deliveries claimed ahead, in rounds of the provider's slots: one claim serves many sends (a claim
 * per send cost more CPU than the send), and the next round is at hand when slots free up.
 */
const ROUNDS_AHEAD = 2;
/**
 * The fewest deliveries a claim reaches for (when that many are due), however few slots the pace
 * allows, up to MAX_ROUNDS_AHEAD rounds: while the server is busy a round is only a few slots, and
 * a claim transaction every few deliveries cost the busy server more than the deliveries (CPU and
 * database writes). The rounds bound how long a claim must be held (its lease).
 */
const MIN_CLAIM = 32;
const MAX_ROUNDS_AHEAD = 8;
/**
 * Outcomes are recorded together, at most this long after the first (ms) at full pace, and
 * longer as the pace slows (the same number of outcomes per transaction): a transaction each
 * cost more than the statements in it. The claim holds the delivery meanwhile.
 */
const RECORD_DELAY_MS = 20;
/** Tries of recording outcomes when the database fails, the first wait between them (ms; doubling). */
const RECORD_TRIES = 4;
const RECORD_RETRY_MS = 250;

/** The outcome of a result: the retry policy. Pure: `now` in epoch seconds. */
export function outcomeOf(item: DeliveryItem, result: SendResult, now: number, o: Omit<DispatcherOptions, 'claimer'>): AttemptOutcome {
  // a delivery held for quiet hours has its whole time to go once they end
  const deadline = (item.heldUntil ?? item.time) + o.giveUpSeconds;
  switch (result.kind) {
    case 'delivered':
      return { state: 'delivered', detail: result.detail };
    case 'accepted':
      return { state: 'receipt', detail: result.detail, receipt: result.receipt, nextAt: now + o.receiptDelaySeconds };
    case 'wait':
      // the provider keeps no receipt for ever: no answer by the deadline counts as delivered
      if (now + o.receiptDelaySeconds > deadline) return { state: 'delivered', detail: `accepted; no receipt came (${result.detail})` };
      return { state: 'receipt', detail: result.detail, receipt: item.receipt, nextAt: now + o.receiptDelaySeconds };
    case 'temporary': {
      const backOff = Math.min(o.retryMaxSeconds, o.retryFirstSeconds * 2 ** Math.min(item.attempts, 30));
      const wait = Math.max(backOff, result.retryAfter ?? 0);
      const tries = item.attempts + 1;
      if (now + wait > deadline) return { state: 'failed', detail: `gave up after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${result.detail}` };
      return { state: 'pending', detail: `${result.detail}; trying again in ${wait} s`, nextAt: now + wait };
    }
    case 'permanent':
      return { state: 'failed', detail: result.detail };
    case 'invalid':
      return { state: 'removed', detail: `${result.detail}: subscription removed` };
  }
}

/** One provider's loop. */
class ChannelLoop {
  private inFlight = 0;
  /** Claimed and not sent yet, oldest first, with the end of their claim. */
  private queue: { item: DeliveryItem; leaseUntil: number }[] = [];
  /** The claim under way, if any. */
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** Outcomes waiting to be recorded, in one transaction every RECORD_DELAY_MS. */
  private outcomes: { item: DeliveryItem; outcome: AttemptOutcome }[] = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private readonly recording = new Set<Promise<void>>();
  /** Requests in flight allowed now (the concurrency, less while the server is busy: `pace`). */
  private limit: number;
  /**
   * Endpoints that asked to slow down. Without the provider's `endpointOf`, the one endpoint ''
   * holds the whole channel (and its claims too).
   */
  private readonly held: EndpointHolds;

  constructor(
    private readonly provider: PushProvider,
    private readonly store: PushStore,
    private readonly o: DispatcherOptions,
    private readonly log: Logger,
    private readonly seconds: () => number,
  ) {
    this.limit = this.most;
    this.held = new EndpointHolds(o.retryMaxSeconds);
  }

  /** Requests in flight at full pace: the dispatcher's concurrency, or the provider's if lower. */
  private get most(): number {
    return Math.min(this.o.concurrency, this.provider.concurrency ?? Infinity);
  }

  /** One round of the slots allowed now. */
  private get round(): number {
    return this.limit * this.provider.batchSize;
  }

  /** Sends with `share` of the concurrency from now on (at least one request). */
  pace(share: number): void {
    this.limit = Math.max(1, Math.round(this.most * share));
  }

  /** How long outcomes wait to be recorded together now (ms): longer as the pace slows. */
  private get recordDelay(): number {
    return Math.round((RECORD_DELAY_MS * this.most) / this.limit);
  }

  /**
   * How many deliveries the queue is filled up to: two rounds, or MIN_CLAIM when that is more
   * (but no more than MAX_ROUNDS_AHEAD rounds), and never more than MAX_CLAIM.
   */
  private get ahead(): number {
    const fewest = Math.min(MIN_CLAIM, MAX_ROUNDS_AHEAD * this.round);
    return Math.min(MAX_CLAIM, Math.max(fewest, ROUNDS_AHEAD * this.round));
  }

  /** Whether deliveries claimed ahead were never sent (their claims are let go at the stop). */
  get holdsUnsent(): boolean {
    return this.queue.length > 0;
  }

  private endpointOf(item: DeliveryItem): string {
    return this.provider.endpointOf?.(item) ?? '';
  }

  /** Whether the channel's one service asked to wait: nothing is claimed meanwhile. */
  private get channelHeld(): boolean {
    return this.provider.endpointOf === undefined && this.held.until('', this.seconds()) > 0;
  }

  /** `endpoint` asked to slow down: nothing goes to it for a while (EndpointHolds), then the loop looks again. */
  private slowDown(endpoint: string, retryAfter: number | undefined): void {
    const wait = this.held.ask(endpoint, this.seconds(), retryAfter);
    if (wait === null) return;
    this.log.info({ channel: this.provider.channel, ...(endpoint !== '' ? { endpoint } : {}), seconds: wait }, 'push: a service asked to slow down: nothing is sent to it meanwhile');
    setTimeout(() => this.pump(), wait * 1000 + 50).unref();
  }

  /** Sends what was claimed while slots are free, and claims more when less than a round is left. */
  pump(): void {
    if (this.stopped) return;
    this.sendQueued();
    if (this.queue.length >= this.round || this.channelHeld) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claimLoop().finally(() => (this.claiming = null));
  }

  private sendQueued(): void {
    const now = this.seconds();
    if (this.held.any) {
      // what goes to an endpoint that asked to wait is not sent: tried again after the wait
      const keep: typeof this.queue = [];
      for (const q of this.queue) {
        const until = this.held.until(this.endpointOf(q.item), now);
        if (until === 0) keep.push(q);
        else this.finish(q.item, { kind: 'temporary', detail: 'not sent: the service asked to slow down', retryAfter: until - now }, 'debug');
      }
      this.queue = keep;
    }
    while (this.inFlight < this.limit && this.queue.length > 0 && !this.stopped) {
      const batch = this.queue.splice(0, this.provider.batchSize);
      // a claim that would run out during the attempt (the pace slowed after it was made) is
      // not used: when it has run out, the delivery is claimed again (here or on another node)
      const held = batch.filter((q) => now + this.o.timeoutSeconds + 5 <= q.leaseUntil).map((q) => q.item);
      if (held.length < batch.length) this.log.debug({ channel: this.provider.channel, dropped: batch.length - held.length }, 'push: claims too old to send on: left to run out');
      if (held.length > 0) this.send(held);
    }
  }

  private async claimLoop(): Promise<void> {
    const { provider, o } = this;
    try {
      do {
        this.again = false;
        const ahead = this.ahead;
        const max = ahead - this.queue.length;
        if (max <= 0 || this.stopped || this.channelHeld) return;
        const now = this.seconds();
        // the claim outlives the wait in the queue (an attempt of each slot for every round ahead
        // of it), its own attempt (the timeout) and the recording of its outcome
        const lease = now + (Math.ceil(ahead / this.round) + 1) * o.timeoutSeconds + 5;
        const items = await this.store.claimDeliveries(provider.channel, max, now, o.claimer, lease);
        for (const item of items) this.queue.push({ item, leaseUntil: lease });
        this.sendQueued();
        if (items.length === max) this.again = true;
      } while (this.again);
    } catch (err) {
      // an outage of the database has a line of its own
      logStoreFailure(this.log, 'warn', err, { channel: provider.channel }, 'push: looking for due deliveries failed (tried again shortly)');
    }
  }

  private send(batch: DeliveryItem[]): void {
    this.inFlight++;
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), this.o.timeoutSeconds * 1000);
    const done = this.provider
      .send(batch, abort.signal)
      .catch((err: unknown): SendResult[] => {
        this.log.error({ err, channel: this.provider.channel }, 'push: a provider failed');
        return batch.map(() => ({ kind: 'temporary', detail: 'internal error of the provider' }));
      })
      .then((results) => batch.forEach((item, i) => this.finish(item, results[i] ?? { kind: 'temporary', detail: 'no result' })))
      // nothing recorded: the claims run out and the deliveries are tried again
      .catch((err: unknown) => this.log.error({ err, channel: this.provider.channel }, 'push: handling the outcome of an attempt failed'))
      .finally(() => {
        clearTimeout(timer);
        this.aborts.delete(abort);
        this.running.delete(done);
        this.inFlight--;
        this.pump();
      });
    this.running.add(done);
  }

  /** The outcome of an attempt, recorded with the others that come within RECORD_DELAY_MS. */
  private finish(item: DeliveryItem, result: SendResult, quiet?: 'debug'): void {
    const now = this.seconds();
    if (result.kind === 'temporary' && result.slowDown) this.slowDown(this.endpointOf(item), result.retryAfter);
    else if (result.kind === 'delivered' || result.kind === 'accepted') this.held.answered(this.endpointOf(item), now);
    const outcome = outcomeOf(item, result, now, this.o);
    const level = quiet ?? (outcome.state === 'delivered' || outcome.state === 'receipt' ? 'debug' : 'info');
    this.log[level]({ channel: this.provider.channel, vehicle: item.vehicleId, delivery: item.id, state: outcome.state, detail: outcome.detail }, 'push: attempt');
    if (this.outcomes.push({ item, outcome }) === 1) this.recordTimer = setTimeout(() => this.record(), this.recordDelay);
  }

  private record(): void {
    clearTimeout(this.recordTimer);
    const list = this.outcomes;
    this.outcomes = [];
    if (list.length === 0) return;
    const attempts = list.map(({ item, outcome }) => ({ id: item.id, outcome }));
    const tracked = this.recordWithRetries(this.seconds(), attempts).finally(() => this.recording.delete(tracked));
    this.recording.add(tracked);
  }

  /**
   * Records `attempts`, tried again a few times when the database fails: the claims are still
   * held until this commits (and stay ours after their leases run out until another node claims
   * them), so nobody sends the deliveries again meanwhile; given up, they are sent again.
   */
  private async recordWithRetries(time: number, attempts: FinishedAttempt[]): Promise<void> {
    const channel = this.provider.channel;
    for (let k = 1; ; k++) {
      try {
        const held = await this.store.finishAttempts(this.o.claimer, time, attempts);
        held.forEach((h, i) => {
          if (!h) this.log.warn({ channel, delivery: attempts[i]!.id }, 'push: the claim of a delivery expired before its attempt ended (another node may send it again)');
        });
        return;
      } catch (err) {
        if (k >= RECORD_TRIES) {
          this.log.error({ err, channel, deliveries: attempts.length }, 'push: recording attempts failed (the deliveries are tried again when their claims expire)');
          return;
        }
        this.log.warn({ err, channel, deliveries: attempts.length }, 'push: recording attempts failed: trying again');
        await new Promise((r) => setTimeout(r, RECORD_RETRY_MS * 2 ** (k - 1)));
      }
    }
  }

  /**
   * Stops claiming and sending, lets what is in flight end for `stopWaitMs` at most (aborted
   * after that) and waits until its outcomes are recorded. Deliveries claimed ahead stay
   * claimed: the dispatcher lets them go.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const ended = Promise.allSettled([...this.running]).then(() => true);
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.o.stopWaitMs)));
    if (!(await Promise.race([ended, late]))) {
      this.log.warn({ channel: this.provider.channel, inFlight: this.inFlight }, 'push: attempts still in flight at the stop were cut off (tried again after the restart)');
      for (const a of this.aborts) a.abort();
    }
    clearTimeout(timer);
    await Promise.allSettled([...this.running, this.claiming]);
    this.record();
    await Promise.allSettled([...this.recording]);
  }
}

export class Dispatcher {
  private readonly loops = new Map<Channel, ChannelLoop>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    providers: readonly PushProvider[],
    private readonly store: PushStore,
    private readonly o: DispatcherOptions,
    private readonly log: Logger,
    seconds: () => number,
  ) {
    for (const p of providers) this.loops.set(p.channel, new ChannelLoop(p, store, o, log, seconds));
  }

  /** Takes back this claimer's old claims, then works off the outbox. */
  async start(): Promise<void> {
    if (this.loops.size === 0 || this.stopped) return;
    try {
      const released = await this.store.releaseClaims(this.o.claimer);
      if (released > 0) this.log.info({ released }, 'push: took back deliveries this node held before it stopped');
    } catch (err) {
      // an outage of the database has a line of its own
      logStoreFailure(this.log, 'warn', err, {}, 'push: taking back old claims failed (they are taken again when their leases run out)');
    }
    if (this.stopped) return; // stopped while the claims were taken back
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /**
   * Sends with `share` (0–1] of each provider's concurrency: the server's event loop is busy
   * (src/push/delivery-thread.ts), and the cars and apps go first.
   */
  pace(share: number): void {
    for (const loop of this.loops.values()) loop.pace(share);
    if (this.timer) this.kick();
  }

  /** Looks for due deliveries now (after a notification was written). */
  kick(channel?: Channel): void {
    if (channel) this.loops.get(channel)?.pump();
    else for (const loop of this.loops.values()) loop.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const loops = [...this.loops.values()];
    await Promise.all(loops.map((l) => l.stop()));
    // what was claimed ahead and never sent goes back to the outbox now, not when the leases run out
    if (!loops.some((l) => l.holdsUnsent)) return;
    await this.store.releaseClaims(this.o.claimer).catch((err: unknown) => {
      // an outage of the database has a line of its own
      logStoreFailure(this.log, 'warn', err, {}, 'push: letting go of unsent deliveries failed (they are taken again when their leases run out)');
    });
  }
}
