/** What every MP connection needs from the server around it. */
import type { Logger } from 'pino';
import type { InactivityTimeouts } from '../core/mp/inactivity.js';
import type { LoginGuard } from '../auth/login-guard.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import { DEFAULT_MAX_HELD_WRITES } from '../store/write-behind.js';

export interface MpLimits {
  /** Longest line accepted (bytes, without CR LF); longer closes the connection. */
  maxLineBytes: number;
  /** Lines a client may send while its login is being checked. */
  maxPendingLines: number;
  /** Bytes queued for a peer that does not read before it is dropped. */
  maxWriteBuffer: number;
  /**
   * Messages a car may send while none of the store's commits ends (its share of the store's
   * hold bound): past it, its connection is read no further until what it sent is committed.
   */
  maxCarMessagesPerCommit: number;
}

export const DEFAULT_LIMITS: MpLimits = {
  maxLineBytes: 16 * 1024,
  maxPendingLines: 64,
  maxWriteBuffer: 4 * 1024 * 1024,
  maxCarMessagesPerCommit: carShareOf(DEFAULT_MAX_HELD_WRITES),
};

/** A car's share of the store's hold bound: a quarter, at most 4096 messages per commit. */
export function carShareOf(maxHeldWrites: number): number {
  return Math.max(1, Math.min(4096, Math.ceil(maxHeldWrites / 4)));
}

export interface MpContext {
  hub: Hub;
  store: Store;
  log: Logger;
  /** The login throttle shared by every secret check (HTTP, MP, MQTT). */
  guard: LoginGuard;
  /** Password checks (queue and cache), shared with the HTTP API. */
  credentials: PasswordChecker;
  timeouts: InactivityTimeouts;
  limits: MpLimits;
  nextConnectionId(): number;
}
