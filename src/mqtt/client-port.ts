/**
 * The bridge's port on an external broker (`--mqtt-url`, e.g. Mosquitto): one MQTT client with a
 * clean session that subscribes to the vehicles' topics (retained metrics come as a replay) and
 * reconnects by itself. It needs a login that may read and write every `ovms/…` topic (the
 * broker's superuser, or an anonymous broker).
 */
import { randomBytes } from 'node:crypto';
import { connect, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { VtsError } from '../errors.js';
import type { BrokerPort, InboundMessage } from './port.js';

export interface ClientPortOptions {
  /** `mqtt://[user:password@]host[:port]`, `mqtts://…`, `ws://…` or `wss://…`. */
  url: string;
  clientId?: string;
  /** How long start() waits for the first connection (ms) before it goes on without it. */
  connectWaitMs?: number;
  log: Logger;
}

/** The URL without its credentials (for logs and the listening line). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

export class ClientPort implements BrokerPort {
  readonly name: string;
  private client: MqttClient | null = null;
  private readonly lost: (() => void)[] = [];

  constructor(private readonly opts: ClientPortOptions) {
    let u: URL;
    try {
      u = new URL(opts.url);
    } catch {
      throw new VtsError('VTS_ERR_CONFIG', '--mqtt-url is not a URL');
    }
    if (!['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(u.protocol)) throw new VtsError('VTS_ERR_CONFIG', '--mqtt-url must be mqtt://, mqtts://, ws:// or wss://');
    this.name = redactUrl(opts.url);
  }

  async start(filters: readonly string[], deliver: (m: InboundMessage) => void): Promise<void> {
    const { log } = this.opts;
    const client = connect(this.opts.url, {
      clientId: this.opts.clientId ?? `vts-bridge-${randomBytes(4).toString('hex')}`,
      clean: true,
      protocolVersion: 4,
      reconnectPeriod: 5000,
      connectTimeout: 10_000,
      keepalive: 60,
      resubscribe: true,
    });
    this.client = client;
    let wasConnected = false;
    let subscribed: () => void = () => undefined;
    const firstSubscription = new Promise<void>((resolve) => (subscribed = resolve));
    client.on('connect', () => {
      wasConnected = true;
      log.info({ broker: this.name }, 'MQTT bridge connected to the broker');
      client.subscribeAsync([...filters], { qos: 1 }).then(
        () => subscribed(),
        (err: Error & { packet?: { granted?: number[] } }) => {
          const codes = err.packet?.granted ?? [];
          const refused = filters.filter((_f, k) => (codes[k] ?? 0) >= 128);
          log.error(
            { err: err.message, broker: this.name, refused },
            'MQTT bridge: the broker refused subscriptions (may the bridge user read ovms/#?)',
          );
          subscribed();
        },
      );
    });
    client.on('close', () => {
      if (!wasConnected) return;
      wasConnected = false;
      log.warn({ broker: this.name }, 'MQTT bridge lost the broker: reconnecting');
      for (const l of this.lost) l();
    });
    client.on('error', (err) => log.warn({ err: err.message, broker: this.name }, 'MQTT bridge: broker error'));
    client.on('message', (topic, payload, packet) => deliver({ topic, payload, replayed: packet.retain }));
    // a broker that is down does not stop vts: wait a little, then go on (the client retries)
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      firstSubscription.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), this.opts.connectWaitMs ?? 5000))),
    ]);
    clearTimeout(timer);
    if (!waited) log.warn({ broker: this.name }, 'MQTT bridge: the broker does not answer yet; going on and retrying');
  }

  onLost(listener: () => void): void {
    this.lost.push(listener);
  }

  async publish(topic: string, payload: string, opts: { qos: 0 | 1; retain: boolean }): Promise<void> {
    const c = this.client;
    if (!c?.connected) throw new VtsError('VTS_ERR_MQTT', 'not connected to the broker');
    await c.publishAsync(topic, payload, { qos: opts.qos, retain: opts.retain });
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c) await c.endAsync();
  }
}
