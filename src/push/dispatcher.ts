/**
 * Works off the outbox: per provider, claims due deliveries from the store, sends them with at
 * most `concurrency` requests in flight and a timeout per attempt, and records each outcome. Each
 * channel has its own loop and its own slots, so a provider that is slow or down holds up only
 * its own deliveries. The retry policy lives here: exponential back-off from `retryFirstSeconds`
 * (doubling, at most `retryMaxSeconds`, at least what `Retry-After` asked), and giving up once
 * the next try would come more than `giveUpSeconds` after the notification was raised.
 */
import type { Logger } from 'pino';
import type { Channel } from '../core/push/channels.js';
import type { AttemptOutcome, DeliveryItem, PushStore } from '../store/push-store.js';
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
}

export const DEFAULT_DISPATCHER_OPTIONS: Omit<DispatcherOptions, 'claimer'> = {
  concurrency: 16,
  timeoutSeconds: 15,
  retryFirstSeconds: 10,
  retryMaxSeconds: 1800,
  giveUpSeconds: 6 * 3600,
  receiptDelaySeconds: 60,
  pollMs: 1000,
};

/** How many deliveries one claim takes at most (a provider's batches are cut from them). */
const MAX_CLAIM = 200;

/** The outcome of a result: the retry policy. Pure: `now` in epoch seconds. */
export function outcomeOf(item: DeliveryItem, result: SendResult, now: number, o: Omit<DispatcherOptions, 'claimer'>): AttemptOutcome {
  const deadline = item.time + o.giveUpSeconds;
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
  private pumping = false;
  private again = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();

  constructor(
    private readonly provider: PushProvider,
    private readonly store: PushStore,
    private readonly o: DispatcherOptions,
    private readonly log: Logger,
    private readonly seconds: () => number,
  ) {}

  /** Claims and sends what is due, while slots are free. */
  pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.claimLoop().finally(() => (this.pumping = false));
  }

  private async claimLoop(): Promise<void> {
    const { provider, o } = this;
    try {
      do {
        this.again = false;
        const free = o.concurrency - this.inFlight;
        if (free <= 0 || this.stopped) return;
        const max = Math.min(MAX_CLAIM, free * provider.batchSize);
        const now = this.seconds();
        // the claim outlives the attempt (its timeout) and the recording of its outcome
        const lease = now + 2 * o.timeoutSeconds + 5;
        const items = await this.store.claimDeliveries(provider.channel, max, now, o.claimer, lease);
        for (let i = 0; i < items.length; i += provider.batchSize) this.send(items.slice(i, i + provider.batchSize));
        if (items.length === max) this.again = true;
      } while (this.again);
    } catch (err) {
      this.log.warn({ err, channel: provider.channel }, 'push: looking for due deliveries failed (tried again shortly)');
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
      .then((results) => Promise.all(batch.map((item, i) => this.finish(item, results[i] ?? { kind: 'temporary', detail: 'no result' }))))
      .then(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        this.aborts.delete(abort);
        this.running.delete(done);
        this.inFlight--;
        this.pump();
      });
    this.running.add(done);
  }

  private async finish(item: DeliveryItem, result: SendResult): Promise<void> {
    const now = this.seconds();
    const outcome = outcomeOf(item, result, now, this.o);
    const channel = this.provider.channel;
    const level = outcome.state === 'delivered' || outcome.state === 'receipt' ? 'debug' : 'info';
    this.log[level]({ channel, vehicle: item.vehicleId, delivery: item.id, state: outcome.state, detail: outcome.detail }, 'push: attempt');
    try {
      const held = await this.store.finishAttempt(item.id, this.o.claimer, now, outcome);
      if (!held) this.log.warn({ channel, delivery: item.id }, 'push: the claim of a delivery expired before its attempt ended (another node may send it again)');
    } catch (err) {
      this.log.error({ err, channel, delivery: item.id }, 'push: recording an attempt failed (the delivery is tried again when its claim expires)');
    }
  }

  /** Stops claiming, aborts what is in flight and waits until its outcomes are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
    await Promise.allSettled([...this.running]);
  }
}

export class Dispatcher {
  private readonly loops = new Map<Channel, ChannelLoop>();
  private timer: NodeJS.Timeout | undefined;

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
    if (this.loops.size === 0) return;
    try {
      const released = await this.store.releaseClaims(this.o.claimer);
      if (released > 0) this.log.info({ released }, 'push: took back deliveries this node held before it stopped');
    } catch (err) {
      this.log.warn({ err }, 'push: taking back old claims failed (they are taken again when their leases run out)');
    }
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due deliveries now (after a notification was written). */
  kick(channel?: Channel): void {
    if (channel) this.loops.get(channel)?.pump();
    else for (const loop of this.loops.values()) loop.pump();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
  }
}
