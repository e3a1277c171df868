/**
 * What the v3 link (mqtt-link.ts) lends the parts of it that publish: the session's publish, the
 * module config `server.v3` as the link reads it, and the topic prefix. The parts (metrics,
 * inbound requests, notifications) import this file, never the link.
 */
import type { ModuleConfig } from '../console/services.js';
import type { LinkHost } from './host.js';

/** Firmware defaults of the numeric `server.v3` parameters (3.3.006). */
const NUMBERS = {
  'updatetime.idle': 600,
  'updatetime.connected': 10,
  'updatetime.on': 5,
  'updatetime.charging': 10,
  'updatetime.awake': 60,
  'updatetime.sendall': 1200,
  'updatetime.keepalive': 1740,
  'queue.sendall': 100,
  'queue.modified': 150,
} as const;
export type NumberParam = keyof typeof NUMBERS;

/** A metric, config or event name as a topic: dots become slashes. */
export const slashes = (s: string): string => s.replace(/\./g, '/');

/**
 * The tunables of `server.v3` (update times, queue sizes, filters, flags), read from the module
 * config each time they are used, with the firmware's defaults.
 */
export class V3Settings {
  constructor(private readonly config: ModuleConfig) {}

  /** A number of NUMBERS; its default when unset or not a number ≥ 0. */
  number(name: NumberParam): number {
    const raw = this.config.get('server.v3', name)?.trim();
    const n = raw ? Number(raw) : NaN;
    return Number.isFinite(n) && n >= 0 ? n : NUMBERS[name];
  }

  /** `yes`, `true` or `1` is true; unset is `dflt`. */
  flag(name: string, dflt: boolean): boolean {
    const raw = this.config.get('server.v3', name)?.trim().toLowerCase();
    if (!raw) return dflt;
    return raw === 'yes' || raw === 'true' || raw === '1';
  }

  text(name: string): string {
    return this.config.get('server.v3', name) ?? '';
  }
}

/** The link's side of its parts. */
export interface V3Channel {
  readonly host: LinkHost;
  /** The topic prefix, ending with `/`. */
  readonly prefix: string;
  readonly settings: V3Settings;
  /** True while logged in to the broker. */
  readonly connected: boolean;
  /** Publishes on the session; false when there is none or the client refused the message. */
  publish(topic: string, payload: string, qos: 0 | 1 | 2, retain: boolean, done?: (err?: Error) => void): boolean;
  /**
   * Publishes at QoS 1 and resolves once the packet went to the socket (or the connection is
   * gone), so that what follows (a command's acknowledgement) follows it.
   */
  publishWritten(topic: string, payload: string): Promise<void>;
  /** Raises a module event (published as the link's own events are). */
  raise(name: string): void;
}
