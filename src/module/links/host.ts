/** What a link of the module emulator needs from the module: state, commands, notifications. */
import type { Logger } from 'pino';
import type { MetricSet } from '../../core/metrics/metric-set.js';
import type { CommandRunner, ModuleConfig, Notification } from '../console/services.js';
import type { EmulatedVehicle } from '../vehicle/vehicle.js';

export interface LinkHost {
  readonly vehicle: EmulatedVehicle;
  readonly metrics: MetricSet;
  readonly config: ModuleConfig;
  readonly runner: CommandRunner;
  readonly log: Logger;
  /** The module clock (epoch seconds). */
  now(): number;
  /** Subscribes to the module's notifications (`run` output, `notify raise`, charge events). */
  onNotification(listener: (n: Notification) => void): () => void;
  /** Reboots the module (MP command 5). */
  reboot(): void;
  /** Tells the module how many clients a link reports (v2 `Z`, v3 presence), for `s.v2.peers`. */
  setPeers(link: 'v2' | 'v3', peers: number, connected: boolean): void;
}
