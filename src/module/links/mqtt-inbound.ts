/**
 * What the v3 link receives (docs/protocol/mqtt-v3.md §4, docs/protocol/commands.md §6): the clients announced on
 * `client/<cid>/active` (120 s expiry) counted into `s.v3.peers`; `client/<cid>/command/<rid>`
 * payloads run as console commands, the output published on `client/<cid>/response/<rid>` (QoS 1)
 * before the command is acknowledged; `request/metric` and `request/config` answered.
 */
import { slashes, type V3Channel } from './mqtt-channel.js';
import type { V3Metrics } from './mqtt-metrics.js';

const CLIENT_TTL_MS = 120_000;

export class V3Inbound {
  /** Active clients and when they expire (real ms). */
  private readonly clients = new Map<string, number>();
  private count = 0;

  /** `clock`: real time in epoch ms, for the clients' expiry. */
  constructor(
    private readonly ch: V3Channel,
    private readonly metrics: V3Metrics,
    private readonly clock: () => number,
  ) {}

  /** How many clients are present. */
  get peers(): number {
    return this.count;
  }

  /** Forgets the clients: `s.v3.peers` is 0, told with whether the link is `connected`. */
  reset(connected: boolean): void {
    this.clients.clear();
    this.count = 0;
    this.ch.host.setPeers('v3', 0, connected);
  }

  /** One publish from the broker, on the link's network task. */
  async handle(topic: string, payload: string): Promise<void> {
    const prefix = this.ch.prefix;
    if (!topic.startsWith(prefix)) return;
    const parts = topic.slice(prefix.length).split('/');
    if (parts[0] !== 'client' || !parts[1]) return;
    const cid = parts[1];
    if (parts.length === 3 && parts[2] === 'active') return this.onActive(cid, payload);
    if (parts.length !== 4) return;
    if (parts[2] === 'command') return this.onCommand(cid, parts[3]!, payload);
    if (parts[2] === 'request' && parts[3] === 'metric') return this.metrics.requested(payload);
    if (parts[2] === 'request' && parts[3] === 'config') return this.onRequestConfig(cid, payload);
  }

  /** Forgets the clients whose announcement expired. */
  purge(): void {
    const now = this.clock();
    for (const [cid, expiry] of this.clients) if (expiry <= now) this.clients.delete(cid);
    this.peersChanged();
  }

  private onActive(cid: string, payload: string): void {
    const present = payload !== '' && payload !== '0';
    if (present) this.clients.set(cid, this.clock() + CLIENT_TTL_MS);
    else this.clients.delete(cid);
    this.peersChanged();
  }

  /** A new client count: `s.v3.peers`, `app.connected`/`app.disconnected`, an early modified pass (§4.1). */
  private peersChanged(): void {
    const n = this.clients.size;
    if (n === this.count) return;
    this.count = n;
    this.ch.host.setPeers('v3', n, this.ch.connected);
    this.ch.raise(n > 0 ? 'app.connected' : 'app.disconnected');
    this.metrics.startPass('modified');
  }

  private async onCommand(cid: string, rid: string, payload: string): Promise<void> {
    let output = '';
    if (payload !== '') {
      try {
        output = await this.ch.host.runner.execute(payload);
      } catch (err) {
        this.ch.host.log.warn({ err, link: 'v3' }, 'v3 command failed');
        output = `Error: ${(err as Error).message}\n`;
      }
    }
    await this.ch.publishWritten(`${this.ch.prefix}client/${cid}/response/${rid}`, output);
  }

  private onRequestConfig(cid: string, payload: string): void {
    const request = payload.trim();
    const slash = request.indexOf('/');
    if (slash <= 0) return;
    const param = request.slice(0, slash);
    const instance = request.slice(slash + 1);
    const value = this.ch.host.config.get(param, instance) ?? '';
    this.ch.publish(`${this.ch.prefix}client/${cid}/config/${slashes(param)}/${slashes(instance)}`, value, 0, false);
  }
}
