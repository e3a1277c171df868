/** Inactivity rules for MP connections (docs/protocol/mp.md §3, §13.1). Times in milliseconds. */
import type { ClientType } from './welcome.js';

export interface InactivityTimeouts {
  /** A connection must send its welcome line within this (REF: 30 s). */
  welcomeMs: number;
  /** Apps are closed after this much silence (REF `timeout_app` 1200 s). */
  appMs: number;
  /** Batch clients are closed after this much silence (REF `timeout_api`: 120 s code, 300 s shipped). */
  batchMs: number;
  /** Cars are closed after this much silence (REF `timeout_car` 960 s). */
  carMs: number;
  /** Minimum gap between two server pings to a car (REF 300 s). */
  carPingGapMs: number;
}

export const DEFAULT_TIMEOUTS: InactivityTimeouts = {
  welcomeMs: 30_000,
  appMs: 1_200_000,
  batchMs: 300_000,
  carMs: 960_000,
  carPingGapMs: 300_000,
};

export interface ActivityState {
  /** null until the login succeeded. */
  clientType: ClientType | null;
  openedAt: number;
  lastRx: number;
  lastTx: number;
  lastPing: number;
}

/**
 * What to do with a connection now: close it, ping the car (`A` with data `FA`), or nothing.
 * A car is pinged when the server has sent it nothing for `carMs − 60 s`, at most every
 * `carPingGapMs`, so that a quiet module hears from the server before its own receive timeout.
 */
export function inactivityAction(s: ActivityState, now: number, t: InactivityTimeouts): 'close' | 'ping' | null {
  switch (s.clientType) {
    case null:
      return now - s.openedAt > t.welcomeMs ? 'close' : null;
    case 'A':
    case 'S':
      return now - s.lastRx > t.appMs ? 'close' : null;
    case 'B':
      return now - s.lastRx > t.batchMs ? 'close' : null;
    case 'C':
      if (now - s.lastRx > t.carMs) return 'close';
      if (now - s.lastTx > Math.max(0, t.carMs - 60_000) && now - s.lastPing > t.carPingGapMs) return 'ping';
      return null;
  }
}
