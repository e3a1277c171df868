/**
 * What the module console needs from the module around it, beyond the vehicle: configuration,
 * notifications, events, link status, reboot. The module (src/module/module.ts) implements it;
 * tests pass a fake.
 */
import type { EmulatedVehicle } from '../vehicle/vehicle.js';

/** Notification types of the firmware (docs/protocol/mqtt-v3.md §5). */
export type NotificationType = 'info' | 'alert' | 'error' | 'data';

export interface Notification {
  type: NotificationType;
  /** e.g. `cmd.stat` for the output of `run stat`, `charge.started`, `usr.custom` */
  subtype: string;
  text: string;
}

/** Module configuration (`config list|get|set|rm`): parameters with named instances. */
export interface ModuleConfig {
  /** Known parameter names, sorted. */
  params(): string[];
  /** Title of a parameter (for `config list`). */
  title(param: string): string | undefined;
  /** Whether values may be read (protected parameters list instance names only) and written. */
  access(param: string): { readable: boolean; writeable: boolean } | undefined;
  /** Instances of a parameter with their values, sorted by instance. */
  instances(param: string): [string, string][] | undefined;
  get(param: string, instance: string): string | undefined;
  /** false when the parameter does not exist or is not writeable. */
  set(param: string, instance: string, value: string): boolean;
  /** Removes an instance, or with `*` every instance; false when nothing was removed. */
  remove(param: string, instance: string): boolean;
}

/** State of one server link, for `server v2 status` / `server v3 status`. */
export interface LinkStatus {
  started: boolean;
  /** e.g. `Connected`, `Connecting`, `Disconnected` */
  state: string;
  /** e.g. `OVMS V2 login successful, and crypto channel established` */
  detail: string;
}

export interface BootInfo {
  /** Epoch seconds of the last (emulated) boot. */
  bootTime: number;
  /** Resets since the last power cycle. */
  resetCount: number;
  /** `PowerOn`, `SoftReset`, … */
  reason: string;
}

export interface ModuleServices {
  readonly vehicle: EmulatedVehicle;
  readonly config: ModuleConfig;
  /** Firmware version string (`m.version`). */
  readonly firmware: string;
  /** Emits a notification on every link that carries notifications. */
  notify(n: Notification): void;
  /** Raises an event (MQTT `event` topic). */
  raiseEvent(name: string): void;
  linkStatus(link: 'v2' | 'v3'): LinkStatus;
  /** `server v2|v3 start|stop`; returns false when already in that state. */
  setLink(link: 'v2' | 'v3', started: boolean): boolean;
  /** `server v2|v3 update …`: sends the metrics again (all or modified). */
  scheduleUpdate(link: 'v2' | 'v3', kind: 'all' | 'modified' | 'priority'): void;
  bootInfo(): BootInfo;
  /** `module reset`: the links drop and come back after a simulated reboot (asynchronously). */
  reboot(): void;
}

/** How every link runs a console command: one command line in secure mode, output back. */
export interface CommandRunner {
  /** Runs a console command line; resolves with its output (LF line ends, last line ended). */
  execute(line: string): Promise<string>;
  /** Runs JavaScript as `script eval` does (module HTTP `type=js`). */
  evalScript(code: string): Promise<string>;
}
