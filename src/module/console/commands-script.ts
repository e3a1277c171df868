/**
 * `script eval <code>` (docs/protocol/module-console.md §9) and the host side of the JavaScript API
 * (script-sandbox.ts): `OvmsMetrics`, `OvmsCommand.Exec`, `OvmsEvents.Raise`, `OvmsNotify.Raise`,
 * `OvmsConfig`, `OvmsVehicle`, answered from the module's services. `OvmsCommand.Exec` returns
 * when the command is done, also one that waits (`sleep`): as in Duktape the script waits, and
 * the time counts towards its limit.
 */
import type { MetricValue } from '../../core/metrics/metric.js';
import type { ChargeMode } from '../vehicle/vehicle.js';
import { Output } from './command.js';
import { atoi } from './c-numbers.js';
import type { ConsoleEnv } from './env.js';
import { zeroValue } from './metric-text.js';
import type { ScriptHostCall } from './script-sandbox.js';
import type { NotificationType } from './services.js';
import { unitByCode, UNIT_MODES, type Unit, type UnitMode } from './units.js';

type Arg = string | number | boolean | undefined;

/** A unit named exactly (as the firmware's `OvmsMetricUnitFromName`); null when unknown. */
function exactUnit(name: string | undefined): Unit | UnitMode | undefined | null {
  if (name === undefined) return undefined;
  if ((UNIT_MODES as readonly string[]).includes(name)) return name as UnitMode;
  return unitByCode(name) ?? null;
}

/** The host operations behind the sandbox's API objects. */
export function scriptHost(env: ConsoleEnv): ScriptHostCall {
  const t = env.text;
  const metrics = env.services.vehicle.metrics;
  const cfg = env.services.config;
  const str = (a: Arg): string | undefined => (typeof a === 'string' ? a : undefined);

  /** The decoded JS value of a metric (DukPush): numbers converted to `unit`. */
  const decoded = (name: string, unit: Unit | UnitMode): unknown => {
    const type = t.type(name);
    if (type === undefined) return undefined;
    const v: MetricValue = metrics.get(name) ?? zeroValue(type);
    const target = t.unitFor(name, unit);
    const conv = (x: number): number => {
      const y = t.toUnit(name, x, target);
      return type === 'I' || type === 'I64' || type === 'VS' ? Math.trunc(y) : y;
    };
    if (typeof v === 'number') return conv(v);
    if (Array.isArray(v)) return v.map(conv);
    return v;
  };

  const vehicleAction = (action: string, a: Arg, b: Arg): unknown => {
    const v = env.services.vehicle;
    if (action === 'type') return v.typeCode;
    if (!env.hasVehicle()) return false;
    const pin = str(a) ?? '';
    switch (action) {
      case 'wakeup':
        return v.wakeup() === 'ok';
      case 'startCharge':
        return v.chargeStart() === 'ok';
      case 'stopCharge':
        return v.chargeStop() === 'ok';
      case 'startCooldown':
        return v.chargeCooldown() === 'ok';
      case 'setChargeMode': {
        const mode = str(a) ?? '';
        return ['standard', 'storage', 'range', 'performance'].includes(mode) && v.chargeMode(mode as ChargeMode) === 'ok';
      }
      case 'setChargeCurrent':
        return v.chargeCurrent(atoi(str(a) ?? '')) === 'ok';
      case 'lock':
        return v.lock(pin) === 'ok';
      case 'unlock':
        return v.unlock(pin) === 'ok';
      case 'valet':
        return v.valet(pin) === 'ok';
      case 'unvalet':
        return v.unvalet(pin) === 'ok';
      case 'homelink': {
        // Duktape's Homelink takes the button from 0, as the firmware's vehicle call.
        const button = atoi(str(a) ?? '') + 1;
        const ms = b === undefined ? 1000 : atoi(str(b) ?? '');
        return button >= 1 && button <= 3 && ms >= 100 && v.homelink(button, ms) === 'ok';
      }
      case 'climate':
        return v.climate(a === true) === 'ok';
      default:
        return undefined;
    }
  };

  return (op, args) => {
    const [a, b, c] = args;
    if (op.startsWith('vehicle.')) return vehicleAction(op.slice(8), a, b);
    switch (op) {
      case 'metrics.value': {
        const name = str(a) ?? '';
        const unit = exactUnit(str(b));
        if (!t.known(name) || unit === null) return undefined;
        if (c !== false) return decoded(name, unit ?? 'native');
        if (unit !== undefined) return t.text(name, { unit }) ?? '';
        return t.plain(name) ?? '';
      }
      case 'metrics.float': {
        const name = str(a) ?? '';
        const unit = exactUnit(str(b));
        if (!t.known(name) || unit === null) return undefined;
        const v = decoded(name, unit ?? 'native');
        if (typeof v === 'number') return v;
        if (typeof v === 'boolean') return v ? 1 : 0;
        if (typeof v === 'string') return parseFloat(v) || 0;
        return 0;
      }
      case 'metrics.has': {
        const name = str(a) ?? '';
        return t.known(name) ? t.defined(name) : undefined;
      }
      case 'metrics.stale': {
        const name = str(a) ?? '';
        return t.known(name) ? metrics.isStale(name, env.now()) : undefined;
      }
      case 'metrics.age': {
        const name = str(a) ?? '';
        if (!t.known(name)) return undefined;
        const since = metrics.updated(name) ?? env.services.bootInfo().bootTime;
        return Math.max(0, Math.floor(env.now() - since));
      }
      case 'metrics.values': {
        const filter: unknown = typeof a === 'string' ? JSON.parse(a) : undefined;
        const names =
          Array.isArray(filter) ? filter.map(String).filter((n) => t.known(n))
          : typeof filter === 'string' ? t.names().filter((n) => n.includes(filter))
          : t.names();
        const result: Record<string, unknown> = {};
        for (const n of names) result[n] = b === false ? (t.plain(n) ?? '') : decoded(n, 'native');
        return result;
      }
      case 'command.exec': {
        const out = new Output(true);
        const pending = env.runLines(str(a) ?? '', out);
        return pending ? pending.then(() => out.text()) : out.text();
      }
      case 'events.raise': {
        const name = str(a) ?? '';
        const delay = typeof b === 'number' && b > 0 ? b : 0;
        if (delay > 0) env.later(delay, () => env.services.raiseEvent(name));
        else env.services.raiseEvent(name);
        return undefined;
      }
      case 'notify.raise': {
        const type = str(a) ?? '';
        if (!['info', 'alert', 'error', 'data'].includes(type)) return false;
        env.services.notify({ type: type as NotificationType, subtype: str(b) ?? '', text: str(c) ?? '' });
        return true;
      }
      case 'config.params':
        return cfg.params();
      case 'config.instances': {
        const p = str(a) ?? '';
        return cfg.access(p)?.readable ? (cfg.instances(p) ?? []).map(([i]) => i) : undefined;
      }
      case 'config.get': {
        const p = str(a) ?? '';
        if (!cfg.access(p)?.readable) return undefined;
        return cfg.get(p, str(b) ?? '') ?? str(c) ?? 'undefined';
      }
      case 'config.set': {
        const p = str(a) ?? '';
        if (cfg.access(p)?.writeable) cfg.set(p, str(b) ?? '', str(c) ?? '');
        return undefined;
      }
      case 'config.delete': {
        const p = str(a) ?? '';
        if (cfg.access(p)?.writeable) cfg.remove(p, str(b) ?? '');
        return undefined;
      }
      default:
        return undefined;
    }
  };
}

export function registerScriptCommands(env: ConsoleEnv): void {
  const script = env.root.add('script', { title: 'SCRIPT framework' });
  script.add('eval', {
    title: 'Eval some javascript code',
    usage: '<code>',
    min: 1,
    max: 1,
    run: ({ args, out }) => {
      // The engine runs one evaluation at a time: the script waiting for this one would wait forever.
      if (out.inScript) return out.puts('ERROR: Error: script eval is not available from inside a script');
      const result = env.evalScript(args[0] as string);
      if (typeof result === 'string') return out.write(result);
      return result.then((text) => out.write(text));
    },
  });
}
