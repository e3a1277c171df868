/**
 * One push provider per channel (src/push/providers/): it turns deliveries into requests to its
 * service and the answers into results. It decides nothing about retries or the outbox: the
 * dispatcher (src/push/dispatcher.ts) does, from the result's kind.
 */
import type { Logger } from 'pino';
import type { Channel } from '../core/push/channels.js';
import type { DeliveryItem } from '../store/push-store.js';

export type { DeliveryItem } from '../store/push-store.js';

/** How one delivery went. `detail` is one short line for the history (no secret, no token). */
export type SendResult =
  /** The service took it for delivery (HTTP 2xx, SMTP 250). */
  | { kind: 'delivered'; detail: string }
  /** Expo: accepted with a ticket; the receipt is to be checked later. */
  | { kind: 'accepted'; detail: string; receipt: string }
  /** Expo: the receipt is not there yet; look again later. */
  | { kind: 'wait'; detail: string }
  /**
   * Try again later: HTTP 429 and 5xx, a timeout, a connection error, an expired credential the
   * provider renewed. `retryAfter`: seconds the service asked for (`Retry-After`). For a
   * `receipt` item: the message is sent again (a receipt check that merely failed is `wait`).
   */
  | {
      kind: 'temporary';
      detail: string;
      retryAfter?: number;
      /**
       * The service asked to slow down (HTTP 429, 503): every delivery to the same endpoint
       * (`endpointOf`) waits, for `retryAfter` or a wait that grows while it keeps asking.
       */
      slowDown?: boolean;
    }
  /** Will fail again the same way (a 4xx other than the ones above): given up. */
  | { kind: 'permanent'; detail: string }
  /** The address is unregistered or invalid (APNs 410 / BadDeviceToken, FCM UNREGISTERED, Expo DeviceNotRegistered): the subscription goes. */
  | { kind: 'invalid'; detail: string };

export interface PushProvider {
  readonly channel: Channel;
  /** What the start line says of it, e.g. `on, https://api.push.apple.com (sandbox: https://api.sandbox.push.apple.com)`. */
  readonly description: string;
  /** Deliveries one `send` takes at most (1: a request each; Expo: up to 90 per request). */
  readonly batchSize: number;
  /**
   * Sends it takes at once at most, when fewer than the dispatcher's concurrency (SMTP: its pool's
   * connections; more would wait in its queue past their timeout and go out after all).
   */
  readonly concurrency?: number;
  /**
   * Delivers `items` (at most batchSize, all of this channel): one result per item, in order.
   * Never rejects: every failure is a result. Gives up when `signal` aborts (the attempt's
   * timeout) with `temporary` results.
   */
  send(items: readonly DeliveryItem[], signal: AbortSignal): Promise<SendResult[]>;
  /**
   * The endpoint of a delivery, for the back-off when a service asks to slow down (a target's
   * origin); without it every delivery of the channel goes to one service.
   */
  endpointOf?(item: DeliveryItem): string;
  /** Closes connections (HTTP/2 sessions, SMTP pools). */
  close(): Promise<void>;
}

/** What every provider gets besides its own settings. */
export interface ProviderDeps {
  log: Logger;
  /** Current time in ms (JWT issue times, token expiry). */
  now: () => number;
  /**
   * Extra trusted CA certificates (PEM) for TLS endpoints: APNs (HTTP/2) and SMTP take them; the
   * HTTP/1.1 providers (FCM, Expo, webhook and ntfy on src/push/providers/http-post.ts) trust NODE_EXTRA_CA_CERTS instead.
   */
  ca?: string;
}
