/**
 * Vehicle status and control (docs/protocol/module-console.md §4): `stat`, `stat trip`, `charge …`, `wakeup`,
 * `lock`/`unlock`, `valet`/`unvalet`, `climatecontrol on|off`, `homelink`, `vehicle status|list`.
 * Texts and argument handling follow the firmware's generic vehicle shell; what a command does
 * to the vehicle is the emulated vehicle's business (its metrics show the effect).
 */
import { formatFixed } from '../../core/metrics/format.js';
import type { ActionOutcome, ChargeMode } from '../vehicle/vehicle.js';
import type { Command, Output } from './command.js';
import { atoi } from './c-numbers.js';
import type { ConsoleEnv } from './env.js';
import type { TripTracker } from './trip.js';

const NO_VEHICLE = 'Error: No vehicle module selected';

/** Success line, failure line, unsupported line of a vehicle action. */
type Texts = readonly [ok: string, failed: string, unsupported: string];

function report(out: Output, outcome: ActionOutcome, [ok, failed, unsupported]: Texts): void {
  out.puts(outcome === 'ok' ? ok : outcome === 'failed' ? failed : unsupported);
}

const MODE_NAMES: Record<string, string> = {
  standard: 'Standard',
  storage: 'Storage',
  range: 'Range',
  performance: 'Performance',
};

const STATE_NAMES: Record<string, string> = {
  charging: 'Charging',
  topoff: 'Topping off',
  done: 'Charge Done',
  preparing: 'Preparing',
  heating: 'Charging, Heating',
  stopped: 'Charge Stopped',
  timerwait: 'Charge Stopped, Timer On',
};

/** `H:MMh` of a duration in minutes. */
function hoursMinutes(minutes: number): string {
  return `${Math.trunc(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}h`;
}

/** The generic `stat` report (`OvmsVehicle::CommandStat`). */
function stat(env: ConsoleEnv, out: Output): void {
  const m = env.services.vehicle.metrics;
  const t = env.text;
  const user = (name: string, decimals: number, dflt = '-'): string =>
    t.text(name, { unit: 'user', decimals }) ?? dflt;
  const state = m.str('v.c.state') ?? '';
  if (m.bool('v.d.cp') && state !== '') {
    const mode = m.str('v.c.mode') ?? '';
    const modeName = MODE_NAMES[mode] ?? mode;
    out.puts(`${modeName !== '' ? `${modeName} - ` : ''}${STATE_NAMES[state] ?? state}`);
    if (state !== 'done' && state !== 'stopped') {
      const showVc = (m.num('v.c.voltage') ?? 0) > 0 || (m.num('v.c.current') ?? 0) > 0;
      let line = '';
      if (showVc) {
        const v = t.text('v.c.voltage', { decimals: 1 }) ?? '-';
        const a = t.text('v.c.current', { decimals: 1 }) ?? '-';
        line = `${v}/${a} `;
      }
      if (m.has('v.b.range.speed') && (m.num('v.b.range.speed') ?? 0) !== 0) out.puts(line + user('v.b.range.speed', 1));
      else if (showVc) out.puts(line);
      const full = Math.trunc(m.num('v.c.duration.full') ?? 0);
      if (full > 0) out.puts(`Full: ${hoursMinutes(full)}`);
      const soc = Math.trunc(m.num('v.c.duration.soc') ?? 0);
      if (soc > 0) out.puts(`${user('v.c.limit.soc', 0, 'SOC')}: ${hoursMinutes(soc)}`);
      const range = Math.trunc(m.num('v.c.duration.range') ?? 0);
      if (range > 0) out.puts(`${user('v.c.limit.range', 0, 'Range')}: ${hoursMinutes(range)}`);
    }
    if (m.has('v.c.kwh.grid')) out.puts(`Drawn: ${user('v.c.kwh.grid', 1)}`);
    if (m.has('v.c.kwh')) out.puts(`Charged: ${user('v.c.kwh', 1)}`);
  } else {
    out.puts('Not charging');
  }
  out.puts(`SOC: ${user('v.b.soc', 1)}`);
  if (m.has('v.b.range.ideal')) out.puts(`Ideal range: ${user('v.b.range.ideal', 0)}`);
  if (m.has('v.b.range.est')) out.puts(`Est. range: ${user('v.b.range.est', 0)}`);
  if (m.has('v.p.odometer')) out.puts(`ODO: ${user('v.p.odometer', 1)}`);
  if (m.has('v.b.cac')) out.puts(`CAC: ${user('v.b.cac', 1)}`);
  if (m.has('v.b.soh')) out.puts(`SOH: ${user('v.b.soh', 0)}`);
}

function signed(x: number, decimals: number): string {
  return (x >= 0 ? '+' : '') + formatFixed(x, decimals);
}

/** The generic `stat trip` report (`OvmsVehicle::CommandStatTrip`, without the motor figures). */
function statTrip(env: ConsoleEnv, trip: TripTracker, out: Output): void {
  const m = env.services.vehicle.metrics;
  const t = env.text;
  const dist = t.userUnitOf('km');
  const speed = t.userUnitOf('kmph');
  const alt = t.userUnitOf('meters');
  const consumption = t.userUnitOf('whpkm');
  const start = trip.snapshot();
  const km = m.num('v.p.trip') ?? 0;
  const h = Math.trunc(start.seconds / 3600);
  const min = Math.trunc((start.seconds % 3600) / 60);
  const sec = start.seconds % 60;
  const duration = (h > 0 ? `${h}:${String(min).padStart(2, '0')}` : String(min)) + `:${String(sec).padStart(2, '0')}`;
  const altDiff = t.toUnit('v.p.altitude', (m.num('v.p.altitude') ?? 0) - start.altitude, alt);
  let text =
    `Trip ${formatFixed(t.toUnit('v.p.trip', km, dist), 1)}${dist.label} (${duration})  ` +
    `Avg ${formatFixed(t.toUnit('v.p.speed', start.speedAvg, speed), 0)}${speed.label} ` +
    `Alt ${signed(altDiff, 0)}${alt.label}`;
  const used = m.num('v.b.energy.used') ?? 0;
  const recd = m.num('v.b.energy.recd') ?? 0;
  const whPerKm = km > 0 ? ((used - recd) * 1000) / km : 0;
  if (whPerKm !== 0) {
    const decimals = consumption.code === 'kmpkwh' || consumption.code === 'mipkwh' ? 2 : consumption.code === 'kwhp100km' ? 1 : 0;
    const recdPercent = used > 0 ? (recd / used) * 100 : 0;
    text += `\nEnergy ${formatFixed(t.toUnit('v.b.consumption', whPerKm, consumption), decimals)}${consumption.label}, ${formatFixed(recdPercent, 0)}% recd`;
  }
  const soc = m.num('v.b.soc') ?? 0;
  const range = t.toUnit('v.b.range.est', m.num('v.b.range.est') ?? 0, dist);
  const rangeStart = t.toUnit('v.b.range.est', start.range, dist);
  text += `\nSOC ${signed(soc - start.soc, 1)}% = ${formatFixed(soc, 1)}%`;
  text += `\nRange ${signed(range - rangeStart, 1)}${dist.label} = ${formatFixed(range, 1)}${dist.label}`;
  out.puts(text);
}

/** Registers a vehicle command that needs a vehicle and reports an action's outcome. */
function action(
  env: ConsoleEnv,
  parent: Command,
  name: string,
  title: string,
  usage: string,
  args: number,
  act: (args: readonly string[]) => ActionOutcome,
  texts: (args: readonly string[]) => Texts,
): void {
  parent.add(name, {
    title,
    usage,
    min: args,
    max: args,
    run: ({ args: a, out }) => {
      if (!env.hasVehicle()) return out.puts(NO_VEHICLE);
      report(out, act(a), texts(a));
    },
  });
}

export function registerVehicleCommands(env: ConsoleEnv, trip: TripTracker): void {
  const root = env.root;
  const vehicle = () => env.services.vehicle;

  const statCmd = root.add('stat', {
    title: 'Show vehicle status',
    usage: '[$C]',
    run: ({ out }) => (env.hasVehicle() ? stat(env, out) : out.puts(NO_VEHICLE)),
  });
  statCmd.add('trip', {
    title: 'Show trip status',
    run: ({ out }) => (env.hasVehicle() ? statTrip(env, trip, out) : out.puts(NO_VEHICLE)),
  });

  const charge = root.add('charge', { title: 'Charging framework' });
  const mode = charge.add('mode', { title: 'Set vehicle charge mode' });
  for (const m of ['standard', 'storage', 'range', 'performance'] as const satisfies readonly ChargeMode[]) {
    // (the firmware gives all four the same title)
    action(env, mode, m, 'Set vehicle standard charge mode', '', 0, () => vehicle().chargeMode(m), () => [
      `Charge mode '${m}' set`,
      'Error: Could not set charge mode',
      'Error: Charge mode functionality not available',
    ]);
  }
  action(env, charge, 'start', 'Start a vehicle charge', '', 0, () => vehicle().chargeStart(), () => [
    'Charge has been started',
    'Error: Could not start charge',
    'Error: Charge start functionality not available',
  ]);
  action(env, charge, 'stop', 'Stop a vehicle charge', '', 0, () => vehicle().chargeStop(), () => [
    'Charge has been stopped',
    'Error: Could not stop charge',
    'Error: Charge stop functionality not available',
  ]);
  action(env, charge, 'current', 'Limit charge current', '<amps>', 1, (a) => vehicle().chargeCurrent(atoi(a[0] ?? '')), (a) => {
    const amps = atoi(a[0] ?? '');
    return [
      `Charge current limit set to ${amps}A`,
      `Error: Could not set charge current limit to ${amps}A`,
      'Error: Charge current limit functionality not available',
    ];
  });
  action(env, charge, 'cooldown', 'Start a vehicle cooldown', '', 0, () => vehicle().chargeCooldown(), () => [
    'Cooldown has been started',
    'Error: Could not start cooldown',
    'Error: Cooldown functionality not available',
  ]);

  action(env, root, 'wakeup', 'Wake up vehicle', '', 0, () => vehicle().wakeup(), () => [
    'Vehicle has been woken',
    'Error: vehicle could not be woken',
    'Error: Vehicle wake functionality not available',
  ]);
  action(env, root, 'lock', 'Lock vehicle', '<pin>', 1, (a) => vehicle().lock(a[0] ?? ''), () => [
    'Vehicle locked',
    'Error: vehicle could not be locked',
    'Error: Vehicle lock functionality not available',
  ]);
  action(env, root, 'unlock', 'Unlock vehicle', '<pin>', 1, (a) => vehicle().unlock(a[0] ?? ''), () => [
    'Vehicle unlocked',
    'Error: vehicle could not be unlocked',
    'Error: Vehicle unlock functionality not available',
  ]);
  action(env, root, 'valet', 'Activate valet mode', '<pin>', 1, (a) => vehicle().valet(a[0] ?? ''), () => [
    'Vehicle valet mode activated',
    'Error: vehicle could not activate valet mode',
    'Error: Vehicle valet functionality not available',
  ]);
  action(env, root, 'unvalet', 'Deactivate valet mode', '<pin>', 1, (a) => vehicle().unvalet(a[0] ?? ''), () => [
    'Vehicle valet mode deactivated',
    'Error: vehicle could not deactivate valet mode',
    'Error: Vehicle valet functionality not available',
  ]);

  const climate = root.add('climatecontrol', { title: '(De)Activate Climate Control' });
  for (const on of [true, false]) {
    climate.add(on ? 'on' : 'off', {
      title: on ? 'Activate Climate Control' : 'Deactivate Climate Control',
      run: ({ out }) => {
        if (!env.hasVehicle()) return out.puts(NO_VEHICLE);
        const outcome = vehicle().climate(on);
        // The firmware prints the two words on two lines, the first with a trailing space.
        if (outcome === 'ok') out.write(`Climate Control \n${on ? 'on' : 'off'}\n`);
        else report(out, outcome, ['', 'Error: Climate Control failed', 'Error: Climate Control functionality not available']);
      },
    });
  }

  root.add('homelink', {
    title: 'Activate specified homelink button',
    usage: '<homelink> [<duration=1000ms>]',
    min: 1,
    max: 2,
    run: ({ args, out }) => {
      const button = atoi(args[0] ?? '');
      if (button < 1 || button > 3) return out.puts('Error: Homelink button should be in range 1..3');
      const ms = args.length > 1 ? atoi(args[1] ?? '') : 1000;
      if (ms < 100) return out.puts('Error: Minimum homelink timer duration 100ms');
      if (!env.hasVehicle()) return out.puts(NO_VEHICLE);
      report(out, vehicle().homelink(button, ms), [
        `Homelink #${button} activated`,
        `Error: Could not activate homelink #${button}`,
        'Error: Homelink functionality not available',
      ]);
    },
  });

  const veh = root.add('vehicle', { title: 'Vehicle framework' });
  veh.add('status', {
    title: 'Show vehicle module status',
    run: ({ out }) => {
      const v = vehicle();
      out.puts(env.hasVehicle() ? `Vehicle module '${v.typeName}' (code ${v.typeCode}) loaded and running` : 'No vehicle module selected');
    },
  });
  veh.add('list', {
    title: 'Show list of available vehicle modules',
    run: ({ out }) => {
      out.puts('Type            Name');
      const types = new Map<string, string>([['DEMO', 'Demonstration Vehicle']]);
      if (env.hasVehicle()) types.set(vehicle().typeCode, vehicle().typeName);
      for (const code of [...types.keys()].sort()) out.puts(`${code.slice(0, 15).padEnd(15)} ${types.get(code) ?? ''}`);
    },
  });
}
