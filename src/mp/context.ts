/** What every MP connection needs from the server around it. */
import type { Logger } from 'pino';
import type { InactivityTimeouts } from '../core/mp/inactivity.js';
import type { LoginGuard } from '../auth/login-guard.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';

export interface MpLimits {
  /** Longest line accepted (bytes, without CR LF); longer closes the connection. */
  maxLineBytes: number;
  /** Lines a client may send while its login is being checked. */
  maxPendingLines: number;
  /** Bytes queued for a peer that does not read before it is dropped. */
  maxWriteBuffer: number;
}

export const DEFAULT_LIMITS: MpLimits = {
  maxLineBytes: 16 * 1024,
  maxPendingLines: 64,
  maxWriteBuffer: 4 * 1024 * 1024,
};

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
