/**
 * The car-data observers: whatever wants to hear each record a vehicle sends (drives and charges,
 * integrations, alerts) registers here (`Hub.onCarData`) instead of adding lines to the
 * store-and-forward path. An observer hears a record once the store has committed it, after the
 * record was passed on to the vehicle's clients, on the node that received it (so once in a
 * cluster). It hears the records it can read: a paranoid record's payload is opaque and is not
 * passed on. Of a vehicle's live records of one code in one second that are committed together
 * while no client of the vehicle watches, it hears the last (the one the store keeps, as latest
 * message and in the history): a car sending a burst costs the observers nothing more. An
 * observer that throws, or whose promise rejects, is logged; it never disturbs the path, the other
 * observers or the car's connection.
 */
import type { Logger } from 'pino';

/** A record from a vehicle that the store has accepted. */
export interface CarDataEvent {
  readonly vehicleId: string;
  readonly ownerId: number;
  /** The record's message code (`S`, `D`, `L`, …), or a historical record's type (`*-LOG-Trip`, …). */
  readonly code: string;
  /** The data as stored (a status record repaired), without the code; a historical record's data. */
  readonly data: string;
  /**
   * When the server received it, in epoch seconds (its stored time); a historical record's own
   * time (arrival plus its negative age), which may be earlier than records already heard.
   */
  readonly time: number;
  /** A historical record (`H`/`h`, a v3 `notify/data`), heard once it is durably stored; else a live message. */
  readonly historical: boolean;
  /** The link it came over: the car's v2 (MP) connection or the v3 (MQTT) link. */
  readonly source: 'v2' | 'mqtt';
}

/** Hears one record; it should return at once (a promise it returns is not waited for). */
export type CarDataObserver = (event: CarDataEvent) => void | Promise<void>;

/**
 * A live record waiting for its commit, then told to the observers: the event and the store's
 * commit callback in one object (the path of every car message allocates nothing else for it).
 */
export class HeardRecord implements CarDataEvent {
  readonly historical = false;
  /** The number of the store's commit it waits for (null: told already). */
  commit: number | null = null;

  constructor(
    private readonly observers: Pick<CarDataObservers, 'notify'>,
    /**
     * Where the record waits, by code, while it may still be replaced (the vehicle's link): it
     * leaves once told, so that a parked car's link holds no record between its messages.
     */
    private readonly waiting: { heard: Map<string, HeardRecord> | undefined },
    readonly vehicleId: string,
    readonly ownerId: number,
    readonly code: string,
    /** Replaced by a later record of the same code and second that joins the same commit. */
    public data: string,
    readonly time: number,
    readonly source: 'v2' | 'mqtt',
  ) {}

  /** Called by the store once the record is committed. */
  fn(): void {
    // told now: never replaced again
    this.commit = null;
    const heard = this.waiting.heard;
    if (heard?.get(this.code) === this) {
      heard.delete(this.code);
      if (heard.size === 0) this.waiting.heard = undefined;
    }
    this.observers.notify(this);
  }
}

export class CarDataObservers {
  private observers: readonly CarDataObserver[] = [];

  constructor(private readonly log: Logger) {}

  /** Whether anyone listens (to spare building events nobody hears). */
  get active(): boolean {
    return this.observers.length > 0;
  }

  /** Adds an observer; the returned function removes it. */
  add(observer: CarDataObserver): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** Tells every observer, in the order they were added: only once the record is committed. */
  notify(event: CarDataEvent): void {
    for (const observer of this.observers) {
      try {
        const pending = observer(event);
        if (pending !== undefined) pending.catch((err: unknown) => this.failed(err, event));
      } catch (err) {
        this.failed(err, event);
      }
    }
  }

  private failed(err: unknown, event: CarDataEvent): void {
    this.log.error({ err, vehicle: event.vehicleId, code: event.code }, 'a car-data observer failed');
  }
}
