/**
 * The module's configuration store (`config list|get|set|rm`, docs/protocol/module-console.md §8), in memory and
 * seeded from the emulator's options. Parameters and titles follow the firmware; `password` is
 * protected (instances listed, values never shown).
 */
import type { ModuleConfig } from './console/services.js';

interface Param {
  title: string;
  readable: boolean;
  writeable: boolean;
  values: Map<string, string>;
}

const PARAMS: [string, string, boolean][] = [
  ['auto', 'Auto start configuration', true],
  ['locations', 'Geo Locations', true],
  ['modem', 'Modem configuration', true],
  ['module', 'Module configuration', true],
  ['network', 'Network configuration', true],
  ['notify', 'Notification filters', true],
  ['password', 'Passwords', false],
  ['server.v2', 'V2 server configuration', true],
  ['server.v3', 'V3 server configuration', true],
  ['vehicle', 'Vehicle configuration', true],
  ['xsq', 'Signal quality configuration', true],
];

export class MemoryConfig implements ModuleConfig {
  private readonly table = new Map<string, Param>();

  constructor(initial: Record<string, Record<string, string>> = {}) {
    for (const [name, title, readable] of PARAMS) this.table.set(name, { title, readable, writeable: true, values: new Map() });
    for (const [param, instances] of Object.entries(initial)) {
      for (const [instance, value] of Object.entries(instances)) this.set(param, instance, value);
    }
  }

  params(): string[] {
    return [...this.table.keys()].sort();
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
    return p && [...p.values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get(param: string, instance: string): string | undefined {
    return this.table.get(param)?.values.get(instance);
  }

  set(param: string, instance: string, value: string): boolean {
    const p = this.table.get(param);
    if (!p || !p.writeable) return false;
    p.values.set(instance, value);
    return true;
  }

  remove(param: string, instance: string): boolean {
    const p = this.table.get(param);
    if (!p) return false;
    if (instance === '*') {
      const had = p.values.size > 0;
      p.values.clear();
      return had;
    }
    return p.values.delete(instance);
  }
}
