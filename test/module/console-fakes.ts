/**
 * Test doubles for the module console: a ModuleServices that records notifications, events,
 * link changes, update requests and reboots, over a FakeVehicle and an in-memory configuration;
 * and `setup()`, which builds a ModuleConsole on them.
 */
import type {
  BootInfo,
  LinkStatus,
  ModuleConfig,
  ModuleServices,
  Notification,
} from '../../src/module/console/services.js';
import { ModuleConsole, type ModuleConsoleOptions } from '../../src/module/console/console.js';
import { FakeVehicle, T0 } from './fake-vehicle.js';

interface Param {
  title: string;
  readable: boolean;
  writeable: boolean;
  values: Map<string, string>;
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class FakeConfig implements ModuleConfig {
  readonly table = new Map<string, Param>();

  constructor() {
    this.define('module', 'Module configuration');
    this.define('password', 'Password store', false);
    this.define('server.v3', 'V3 server configuration');
    this.define('vehicle', 'Vehicle configuration');
    this.define('locations', 'Location configuration');
    this.define('fixed', 'A read-only parameter', true, false);
    this.set('server.v3', 'server', 'mqtt.example.org');
    this.set('server.v3', 'port', '8883');
    this.set('password', 'module', '');
    this.set('password', 'server.v3', 'secret');
  }

  define(name: string, title: string, readable = true, writeable = true): void {
    this.table.set(name, { title, readable, writeable, values: new Map() });
  }

  params(): string[] {
    return [...this.table.keys()].sort(byteOrder);
  }

  title(param: string): string | undefined {
    return this.table.get(param)?.title;
  }

  access(param: string): { readable: boolean; writeable: boolean } | undefined {
    const p = this.table.get(param);
    return p && { readable: p.readable, writeable: p.writeable };
  }

  instances(param: string): [string, string][] | undefined {
    const p = this.table.get(param);
    return p && [...p.values].sort(([a], [b]) => byteOrder(a, b));
  }

  get(param: string, instance: string): string | undefined {
    return this.table.get(param)?.values.get(instance);
  }

  set(param: string, instance: string, value: string): boolean {
    const p = this.table.get(param);
    if (!p) return false;
    p.values.set(instance, value);
    return true;
  }

  remove(param: string, instance: string): boolean {
    const p = this.table.get(param);
    if (!p) return false;
    if (instance !== '*') return p.values.delete(instance);
    const had = p.values.size > 0;
    p.values.clear();
    return had;
  }
}

export class FakeServices implements ModuleServices {
  readonly vehicle = new FakeVehicle();
  readonly config = new FakeConfig();
  readonly firmware = '3.3.006-259-g1aa1daff/ota_0/main (build idf v5.0.7 Aug 22 2026 10:00:00)';
  readonly notifications: Notification[] = [];
  readonly events: string[] = [];
  readonly updates: string[] = [];
  reboots = 0;
  boot: BootInfo = { bootTime: T0 - 3600, resetCount: 2, reason: 'SoftReset' };
  readonly links: Record<'v2' | 'v3', LinkStatus> = {
    v2: { started: true, state: 'Connected', detail: 'OVMS V2 login successful, and crypto channel established' },
    v3: { started: false, state: 'Undefined', detail: '' },
  };

  notify(n: Notification): void {
    this.notifications.push(n);
  }

  raiseEvent(name: string): void {
    this.events.push(name);
  }

  linkStatus(link: 'v2' | 'v3'): LinkStatus {
    return this.links[link];
  }

  setLink(link: 'v2' | 'v3', started: boolean): boolean {
    if (this.links[link].started === started) return false;
    this.links[link] = started
      ? { started, state: 'Connecting', detail: 'Connecting...' }
      : { started, state: 'Undefined', detail: '' };
    return true;
  }

  scheduleUpdate(link: 'v2' | 'v3', kind: 'all' | 'modified' | 'priority'): void {
    this.updates.push(`${link} ${kind}`);
  }

  bootInfo(): BootInfo {
    return this.boot;
  }

  reboot(): void {
    this.reboots++;
  }
}

/** A console over fresh fakes; `run(line)` executes a payload. */
export function setup(options: ModuleConsoleOptions = {}): {
  services: FakeServices;
  vehicle: FakeVehicle;
  console: ModuleConsole;
  run: (line: string) => Promise<string>;
} {
  const services = new FakeServices();
  const console = new ModuleConsole(services, { rebootDelayMs: 0, ...options });
  return { services, vehicle: services.vehicle, console, run: (line) => console.execute(line) };
}
