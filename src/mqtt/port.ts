/**
 * The bridge's view of a broker: the embedded aedes broker (in process) or an external broker it
 * reaches as an MQTT client. Either way it delivers the publishes under `ovms/` and publishes the
 * bridge's own messages (presence, commands).
 */

export interface InboundMessage {
  topic: string;
  payload: Buffer;
  /**
   * A retained message the broker replays because the bridge just subscribed: a value from the
   * past, not a sign of life of the module.
   */
  replayed: boolean;
  /** The embedded broker's connection that published it (to notice that connection end). */
  source?: object;
}

export interface BrokerPort {
  /** For logs and the listening line: `embedded` or the external broker's URL without credentials. */
  readonly name: string;
  /**
   * Starts delivering messages that match `filters`; `gone` hears of embedded connections that
   * ended (an external broker tells nothing: there, the modules' wills do).
   */
  start(filters: readonly string[], deliver: (m: InboundMessage) => void, gone: (source: object) => void): Promise<void>;
  /** Hears when the bridge lost its broker (external only): every vehicle's state is unknown then. */
  onLost(listener: () => void): void;
  publish(topic: string, payload: string, opts: { qos: 0 | 1; retain: boolean }): Promise<void>;
  close(): Promise<void>;
}
