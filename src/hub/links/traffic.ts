/**
 * Traffic accounting per vehicle, client type and UTC day (docs/protocol/mp.md §17). Connections
 * count their bytes in plain fields (no per-message map lookups); the accounting collects and
 * resets them when a connection ends and on every flush.
 */
import { startOfUtcDay } from '../../core/time.js';
import type { UtilisationDelta } from '../../store/store.js';
import type { Peer } from './peer.js';

export class TrafficAccounting {
  private pending = new Map<string, UtilisationDelta>();

  collect(peer: Peer, now: number): void {
    const rx = peer.rxBytes;
    const tx = peer.txBytes;
    if (rx === 0 && tx === 0) return;
    peer.rxBytes = 0;
    peer.txBytes = 0;
    const day = startOfUtcDay(now);
    const key = `${peer.vehicleId}\n${peer.clientType}\n${day}`;
    const d = this.pending.get(key);
    if (d) {
      d.rx += rx;
      d.tx += tx;
    } else {
      this.pending.set(key, { vehicleId: peer.vehicleId, day, clientType: peer.clientType, rx, tx });
    }
  }

  /** Everything collected since the last drain. */
  drain(): UtilisationDelta[] {
    const out = [...this.pending.values()];
    this.pending = new Map();
    return out;
  }
}
