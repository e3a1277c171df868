/**
 * The live stream of one vehicle: `GET /api/live/<id>` (Server-Sent Events, cookie auth), with
 * typed events for the pages and reconnection when the server refuses or drops it.
 */
import { checkSession, liveUrl } from './api';
import type { LiveHello, LiveLink, LiveNotification, LiveRecord } from './types';

export type StreamState = 'connecting' | 'open' | 'retrying';

export interface LiveHandlers {
  hello?(data: LiveHello): void;
  link?(data: LiveLink): void;
  record?(data: LiveRecord): void;
  notification?(data: LiveNotification): void;
  state?(state: StreamState): void;
  /** the server refused the stream (401, 403…); it is retried unless close() is called */
  refused?(): void;
}

const RETRY_FIRST_MS = 3_000;
const RETRY_MAX_MS = 60_000;

function parse<T>(ev: Event): T | null {
  if (!(ev instanceof MessageEvent) || typeof ev.data !== 'string') return null;
  try {
    const data = JSON.parse(ev.data) as unknown;
    return data && typeof data === 'object' ? (data as T) : null;
  } catch {
    return null;
  }
}

export class LiveStream {
  private es: EventSource | null = null;
  private readonly handlers = new Set<LiveHandlers>();
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private _state: StreamState = 'connecting';

  constructor(private readonly vehicleId: string) {}

  get state(): StreamState {
    return this._state;
  }

  /** Adds handlers; returns the function that removes them. */
  subscribe(h: LiveHandlers): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }

  start(): void {
    if (this.closed) return;
    this.setState('connecting');
    const es = new EventSource(liveUrl(this.vehicleId), { withCredentials: true });
    this.es = es;
    es.addEventListener('open', () => {
      this.retryMs = RETRY_FIRST_MS;
      this.setState('open');
    });
    this.forward<LiveHello>(es, 'hello', (h, d) => h.hello?.(d));
    this.forward<LiveLink>(es, 'link', (h, d) => h.link?.(d));
    this.forward<LiveRecord>(es, 'record', (h, d) => h.record?.(d));
    this.forward<LiveNotification>(es, 'notification', (h, d) => h.notification?.(d));
    es.addEventListener('error', () => {
      if (this.closed || this.es !== es) return;
      if (es.readyState === EventSource.CONNECTING) {
        // the browser reconnects by itself (the stream was dropped)
        this.setState('connecting');
        return;
      }
      // refused (401, 403, 404…) or not an event stream: find out whether the session ended
      es.close();
      this.es = null;
      this.setState('retrying');
      void checkSession().catch(() => true);
      for (const h of [...this.handlers]) h.refused?.();
      if (this.closed) return;
      this.retryTimer = setTimeout(() => this.start(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.es?.close();
    this.es = null;
    this.handlers.clear();
  }

  private forward<T>(es: EventSource, type: string, call: (h: LiveHandlers, data: T) => void): void {
    es.addEventListener(type, (ev) => {
      const data = parse<T>(ev);
      if (data === null) return;
      for (const h of [...this.handlers]) call(h, data);
    });
  }

  private setState(s: StreamState): void {
    this._state = s;
    for (const h of [...this.handlers]) h.state?.(s);
  }
}
