/** The bridge's port on the embedded aedes broker: it sees every publish, in process. */
import type { Aedes, Client } from 'aedes';
import type { BrokerPort, InboundMessage } from './port.js';

export class EmbeddedPort implements BrokerPort {
  readonly name = 'embedded';

  constructor(private readonly aedes: Aedes) {}

  start(_filters: readonly string[], deliver: (m: InboundMessage) => void, gone: (source: object) => void): Promise<void> {
    // every publish of a client (the bridge's own have no client); the bridge ignores what is not
    // a vehicle's, so the filters need not be matched here
    this.aedes.on('publish', (packet, client: Client | null) => {
      if (!client || !packet.topic.startsWith('ovms/')) return;
      const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
      deliver({ topic: packet.topic, payload, replayed: false, source: client });
    });
    this.aedes.on('clientDisconnect', (client) => gone(client));
    return Promise.resolve();
  }

  onLost(): void {}

  publish(topic: string, payload: string, opts: { qos: 0 | 1; retain: boolean }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.aedes.publish({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: opts.qos, retain: opts.retain, dup: false }, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
