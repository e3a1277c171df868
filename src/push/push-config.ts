/** The push service's settings (the `serve` options of src/cli/push-options.ts), and the dispatcher's options they make. */
import { DEFAULT_DISPATCHER_OPTIONS, type DispatcherOptions } from './dispatcher.js';
import type { PushProviderConfig } from './providers.js';

export interface PushConfig extends PushProviderConfig {
  /** The vehicle's rate limit: notifications at once, and per minute after (0/0: no limit). Default 10/1. */
  limit?: { burst: number; perMinute: number };
  /** Seconds before the first retry (doubling). */
  retrySeconds?: number;
  /** Seconds after which a delivery is given up. */
  giveUpSeconds?: number;
  /** Seconds one attempt may take. */
  timeoutSeconds?: number;
  /** Seconds after which Expo's receipts are checked. */
  receiptDelaySeconds?: number;
  /** How often the outbox is looked at for due deliveries (ms). */
  pollMs?: number;
  /** Extra trusted CA certificates (PEM) for the providers' TLS endpoints (tests). */
  ca?: string;
}

export const DEFAULT_PUSH_LIMIT = { burst: 10, perMinute: 1 };

/** The dispatcher's options: `config`'s, else the defaults; claims are held in `claimer`'s name. */
export function dispatcherOptions(config: PushConfig, claimer: string): DispatcherOptions {
  const d = DEFAULT_DISPATCHER_OPTIONS;
  return {
    ...d,
    claimer,
    retryFirstSeconds: config.retrySeconds ?? d.retryFirstSeconds,
    giveUpSeconds: config.giveUpSeconds ?? d.giveUpSeconds,
    timeoutSeconds: config.timeoutSeconds ?? d.timeoutSeconds,
    receiptDelaySeconds: config.receiptDelaySeconds ?? d.receiptDelaySeconds,
    pollMs: config.pollMs ?? d.pollMs,
  };
}
