/**
 * Network and server commands (docs/protocol/module-console.md §7): `server v2|v3 [status|start|stop|update …]`
 * over the module's link services, `location [status|list]` from the position metrics and the
 * `locations` config (instances `<name>` = `<lat>,<lon>[,<radius m>]`, as the firmware stores
 * them), and `wifi status` (invented but shaped like the firmware's, from the network metrics).
 */
import { formatFixed } from '../../core/metrics/format.js';
import type { Output } from './command.js';
import type { ConsoleEnv } from './env.js';

function serverCommands(env: ConsoleEnv, link: 'v2' | 'v3'): void {
  const server = env.root.child('server') ?? env.root.add('server', { title: 'OVMS Server Connection framework' });
  const upper = link.toUpperCase();
  const status = (out: Output): void => {
    const s = env.services.linkStatus(link);
    if (!s.started) return out.puts(`OVMS ${link} server has not been started`);
    out.puts(`State: ${s.state}`);
    out.puts(`       ${s.detail}`);
  };
  const cmd = server.add(link, { title: `OVMS Server ${upper} Protocol`, usage: '[$C]', run: ({ out }) => status(out) });
  cmd.add('status', { title: `Show OVMS Server ${upper} connection status`, run: ({ out }) => status(out) });
  cmd.add('start', {
    title: `Start an OVMS Server ${upper} connection`,
    run: ({ out }) =>
      out.puts(
        env.services.setLink(link, true) ? `Launching OVMS Server ${upper} connection (osc${link})` : `OVMS ${link} server has already been started`,
      ),
  });
  cmd.add('stop', {
    title: `Stop an OVMS Server ${upper} connection`,
    run: ({ out }) =>
      out.puts(env.services.setLink(link, false) ? `Stopping OVMS Server ${upper} connection (osc${link})` : `OVMS ${link} server has not been started`),
  });
  const update = cmd.add('update', { title: `Request OVMS Server ${upper} data update` });
  const kinds = link === 'v2' ? (['all', 'modified'] as const) : (['all', 'modified', 'priority'] as const);
  for (const kind of kinds) {
    update.add(kind, {
      title: `Transmit ${kind} metrics`,
      run: ({ out }) => {
        env.services.scheduleUpdate(link, kind);
        out.puts(`Server ${upper} data update for ${kind} metrics has been scheduled`);
      },
    });
  }
}

interface Place {
  name: string;
  lat: number;
  lon: number;
  radius: number;
}

/** The defined locations (config `locations`), sorted by name. */
function places(env: ConsoleEnv): Place[] {
  const list: Place[] = [];
  for (const [name, value] of env.services.config.instances('locations') ?? []) {
    const [lat, lon, radius] = value.split(',').map((s) => parseFloat(s));
    if (lat === undefined || lon === undefined || !Number.isFinite(lat) || !Number.isFinite(lon)) continue;
    list.push({ name, lat, lon, radius: radius !== undefined && Number.isFinite(radius) ? radius : 100 });
  }
  return list;
}

/** Great-circle distance in metres. */
function distance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371000 * Math.asin(Math.min(1, Math.sqrt(a)));
}

function locationStatus(env: ConsoleEnv, out: Output): void {
  const m = env.services.vehicle.metrics;
  const lat = m.num('v.p.latitude') ?? 0;
  const lon = m.num('v.p.longitude') ?? 0;
  const pos = `${formatFixed(lat, 6)},${formatFixed(lon, 6)}`;
  const lock = m.bool('v.p.gpslock');
  let gps = `${lock ? '' : 'without '}GPS lock`;
  if (m.has('v.p.satcount')) {
    const sats = Math.trunc(m.num('v.p.satcount') ?? 0);
    gps += `, ${sats} satellite${sats === 1 ? '' : 's'}, ${lock && sats >= 4 ? 'reliable' : 'unreliable'}`;
  }
  out.puts(`Currently at ${pos} (${gps})`);
  if (!m.bool('v.e.on')) out.puts(`Vehicle is parked at ${pos}`);
  const all = places(env);
  out.puts(all.length === 1 ? 'There is 1 location defined' : `There are ${all.length} locations defined`);
  const active = all.filter((p) => distance(lat, lon, p.lat, p.lon) <= p.radius).map((p) => p.name);
  out.puts(active.length > 0 ? `Active locations: ${active.join(' ')}` : 'No active locations');
}

function locationList(env: ConsoleEnv, out: Output): void {
  const m = env.services.vehicle.metrics;
  const lat = m.num('v.p.latitude') ?? 0;
  const lon = m.num('v.p.longitude') ?? 0;
  for (const p of places(env)) {
    const active = distance(lat, lon, p.lat, p.lon) <= p.radius ? '*' : '';
    out.puts(`${active}${p.name}: ${formatFixed(p.lat, 6)},${formatFixed(p.lon, 6)} (${p.radius}m)`);
  }
}

/** A stable, locally administered MAC address derived from the vehicle id. */
function macOf(id: string): string {
  let h = 2166136261;
  for (const ch of id) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  const bytes = [0x02, 0x4f, (h >>> 24) & 255, (h >>> 16) & 255, (h >>> 8) & 255, h & 255];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function wifiStatus(env: ConsoleEnv, out: Output): void {
  const m = env.services.vehicle.metrics;
  const ssid = m.str('m.net.wifi.network') || (m.str('m.net.type') === 'wifi' ? (m.str('m.net.provider') ?? '') : '');
  out.puts('Power: on');
  out.puts('Mode: Client mode');
  if (ssid === '') {
    out.puts('STA disconnected');
    return;
  }
  const sq = m.num('m.net.wifi.sq') ?? m.num('m.net.sq') ?? -60;
  out.puts(`STA SSID: ${ssid} (${formatFixed(sq, 1)} dBm) [connected]`);
  out.puts(`  MAC: ${macOf(env.services.vehicle.id)}`);
  out.puts('  IP: 192.168.4.42/255.255.255.0');
  out.puts('  GW: 192.168.4.1');
  out.puts(`  AP: ${macOf(ssid)}`);
}

export function registerNetworkCommands(env: ConsoleEnv): void {
  serverCommands(env, 'v2');
  serverCommands(env, 'v3');

  const location = env.root.add('location', { title: 'LOCATION framework', usage: '[$C]', run: ({ out }) => locationStatus(env, out) });
  location.add('status', { title: 'Show location status', run: ({ out }) => locationStatus(env, out) });
  location.add('list', { title: 'Show all locations', run: ({ out }) => locationList(env, out) });

  const wifi = env.root.add('wifi', { title: 'WIFI framework' });
  wifi.add('status', { title: 'Show wifi status', run: ({ out }) => wifiStatus(env, out) });
}
