/**
 * A vehicle's v3 link as the hub sees it: the MQTT bridge implements it for every vehicle whose
 * module is online on the broker. The hub tells it how many apps watch the vehicle and
 * sends MP commands through it; the bridge feeds the hub the vehicle's records, notifications and
 * history through the Hub's `v3…` methods.
 */
import type { MpCommand } from '../../core/commands/request.js';
import type { CommandOutcome } from '../../core/commands/result.js';

export interface V3Link {
  /** For logs: where the vehicle is (`mqtt:<client id>`). */
  readonly label: string;
  /** Apps and API sessions watching the vehicle now: the bridge is a v3 client while it is > 0. */
  clientCount(n: number): void;
  /**
   * Runs an MP command as a console command (docs/protocol/mqtt-v3.md §11.7); rejects with
   * VTS_ERR_COMMAND_TIMEOUT or VTS_ERR_NOT_CONNECTED.
   */
  run(command: MpCommand, timeoutMs: number): Promise<CommandOutcome>;
}
