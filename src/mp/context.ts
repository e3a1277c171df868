/** What every MP connection needs from the server around it. */
import type { Logger } from 'pino';
import type { InactivityTimeouts } from '../core/mp/inactivity.js';
import type { LoginThrottle } from '../core/login-throttle.js';
import type { CredentialCache } from '../auth/credential-cache.js';
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
  /** Failed logins per (source address, vehicle or user): the brute-force guard. */
  throttle: LoginThrottle;
  /** Failed logins per source address, with looser limits (many modules may share one NAT). */
  addressThrottle: LoginThrottle;
  /** Verified (user, password) pairs, shared with the HTTP API. */
  credentials: CredentialCache;
  timeouts: InactivityTimeouts;
  limits: MpLimits;
  /** Vehicles whose car login failed since the last success (for the auth alerts of §4.2). */
  carAuthFailed: Set<string>;
  nextConnectionId(): number;
}
