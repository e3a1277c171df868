/** Shared by the Home Assistant tests: an MQTT listener that keeps what it heard, and an MP car. */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { MqttClient } from 'mqtt';
import { EmulatedModule } from '../../src/module/module.js';
import { createLogger } from '../../src/util/log.js';
import { eventually } from '../mp/helpers.js';
import type { MqttHarness } from '../mqtt/harness.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

export interface Listener {
  client: MqttClient;
  /** Settles once the subscriptions are granted. */
  ready: Promise<void>;
  /** The last payload on the topic (undefined: none yet). */
  last(topic: string): string | undefined;
  /** How many messages came on the topic. */
  count(topic: string): number;
  /** Every message, in order. */
  readonly messages: { topic: string; payload: string; retain: boolean }[];
  /**
   * Resolves once a marker published now on `ovms/<user>/zz-marker` (which `listen` subscribes
   * to) came back: everything the broker sent this client before has arrived.
   */
  flushed(): Promise<void>;
}

export function listen(client: MqttClient, filters: string[]): Listener {
  const messages: { topic: string; payload: string; retain: boolean }[] = [];
  const last = new Map<string, string>();
  const counts = new Map<string, number>();
  client.on('message', (topic, payload, packet) => {
    const text = payload.toString();
    messages.push({ topic, payload: text, retain: packet.retain });
    last.set(topic, text);
    counts.set(topic, (counts.get(topic) ?? 0) + 1);
  });
  const marker = `ovms/${client.options.username ?? ''}/zz-marker`;
  return {
    client,
    ready: client.subscribeAsync([...filters, marker], { qos: 0 }).then(() => undefined),
    last: (topic) => last.get(topic),
    count: (topic) => counts.get(topic) ?? 0,
    messages,
    async flushed() {
      const payload = `marker-${randomBytes(4).toString('hex')}`;
      await client.publishAsync(marker, payload);
      await eventually(() => (messages.some((m) => m.payload === payload) ? true : undefined), 'the marker');
    },
  };
}

/** `eventually` with room for a loaded CI machine (the wait ends as soon as the probe answers). */
export function soon<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  return eventually(probe, what, Math.max(timeoutMs, 20_000));
}

/** An emulated module on the v2 link (MP) for the vehicle, started; stopped when the test ends. */
export async function mpCar(h: MqttHarness, id: string, seed = 3): Promise<EmulatedModule> {
  const mod = new EmulatedModule({ id, seed, carPassword: 'NETPASS', adminPassword: 'admin', server: { host: '127.0.0.1', port: h.t.mpPort }, log: quiet });
  await mod.start();
  await eventually(() => (h.t.server.hub.link(id)?.car ? true : undefined), 'the car online');
  return mod;
}
