/**
 * The notifications of the v3 link (docs/protocol/mqtt-v3.md §5) on `notify/<type>/<subtype>`: info, alert and
 * error at QoS 1; data records at QoS 2, one at a time, on `notify/data/<subtype>/<id>/<age>`.
 * They are queued while offline (the last 100 of each kind) and sent one a second after a
 * reconnect.
 */
import type { Notification } from '../console/services.js';
import { slashes, type V3Channel } from './mqtt-channel.js';

const MAX_PENDING = 100;

interface Pending extends Notification {
  id: number;
  /** Module time it was raised. */
  created: number;
}

export class V3Notifications {
  private readonly pending: Pending[] = [];
  private readonly pendingData: Pending[] = [];
  private dataInFlight: Pending | null = null;
  private entryId = 0;

  constructor(private readonly ch: V3Channel) {}

  /** Queues a notification raised at `created` (module time, default now); false when it is not one the link sends. */
  add(n: Notification, created = this.ch.host.now()): boolean {
    if (n.subtype === 'server.v3.auth.failure') return false;
    const entry: Pending = { ...n, id: ++this.entryId, created };
    const queue = n.type === 'data' ? this.pendingData : this.pending;
    queue.push(entry);
    if (queue.length > MAX_PENDING) queue.shift();
    return true;
  }

  /** Sends the oldest pending info/alert/error entry, and the oldest data entry unless one is in flight. */
  pump(): void {
    if (!this.ch.connected) return;
    const prefix = this.ch.prefix;
    const n = this.pending[0];
    if (n && this.ch.publish(`${prefix}notify/${n.type}/${slashes(n.subtype)}`, n.text, 1, false)) this.pending.shift();
    const d = this.pendingData[0];
    if (!d || this.dataInFlight) return;
    const age = Math.min(0, d.created - this.ch.host.now());
    const topic = `${prefix}notify/data/${slashes(d.subtype)}/${d.id}/${age}`;
    const sent = this.ch.publish(topic, d.text.split('\n', 1)[0]!, 2, false, (err) => {
      if (this.dataInFlight !== d) return;
      this.dataInFlight = null;
      const i = this.pendingData.indexOf(d);
      if (!err && i >= 0) this.pendingData.splice(i, 1);
    });
    if (sent) this.dataInFlight = d;
  }

  /** The session is gone: the data entry in flight is sent again on the next one. */
  sessionLost(): void {
    this.dataInFlight = null;
  }

  /** The link stopped: everything queued is dropped. */
  clear(): void {
    this.pending.length = 0;
    this.pendingData.length = 0;
    this.dataInFlight = null;
  }
}
