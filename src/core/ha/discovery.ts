/**
 * Home Assistant MQTT discovery of a vehicle (docs/home-assistant.md): one retained device-based
 * payload per vehicle at `<prefix>/device/vts_<node id>/config` whose components read the
 * vehicle's OVMS v3 metric topics (published by a v3 module itself, or mirrored by vts for a v2
 * car) and the topics vts computes for every car under `<vehicle topics>vts/` (VTS_TOPICS).
 *
 * Full option names are used (not HA's abbreviations), so the payload reads as HA's documentation
 * does. Values come as the module publishes them: numbers in native units (km, kW, kWh, °C, V),
 * booleans as `yes`/`no`. For a vehicle set to miles, distance components say `mi` and convert in
 * their value template. Pure.
 */

/** The topics vts publishes for each vehicle, after the vehicle's prefix `ovms/<owner>/<vehicle>/`. */
export const VTS_TOPICS = {
  /** `online` while a module link of the vehicle is up, else `offline` (retained). */
  availability: 'vts/availability',
  /** `yes` when a door, the trunk or the hood is open, else `no` (retained). */
  doors: 'vts/doors',
  /** `{"latitude":…,"longitude":…,"gps_accuracy":…}` (retained). */
  location: 'vts/location',
  /** ISO 8601 UTC time of the last record from the car (retained). */
  lastSeen: 'vts/last_seen',
  /** The lifetime sum of the energy of the vehicle's charges, kWh (retained, never decreasing). */
  energyChargedTotal: 'vts/energy_charged_total',
  /** Commands: `vts/set/<charge|climate|wakeup>` (see HA_COMMANDS). */
  set: 'vts/set/',
  /** The outcome of each command sent through `vts/set/…` (JSON, not retained). */
  result: 'vts/result',
} as const;

export const ONLINE = 'online';
export const OFFLINE = 'offline';

/** What a command topic takes: component → payload → MP command text. */
export const HA_COMMANDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  charge: { ON: '#11', OFF: '#12' },
  climate: { ON: '#26,1', OFF: '#26,0' },
  wakeup: { PRESS: '#18' },
};

/** The node id of a vehicle id: characters outside [A-Za-z0-9_-] become `_`. */
export function haNodeId(vehicleId: string): string {
  return `vts_${vehicleId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** The discovery topic of a vehicle. */
export function discoveryTopic(prefix: string, vehicleId: string): string {
  return `${prefix}/device/${haNodeId(vehicleId)}/config`;
}

/** The node id of a discovery topic under `prefix` (`<prefix>/device/<node>/config`), else null. */
export function discoveryNodeOf(prefix: string, topic: string): string | null {
  if (!topic.startsWith(`${prefix}/device/`) || !topic.endsWith('/config')) return null;
  const node = topic.slice(prefix.length + 8, -7);
  return node === '' || node.includes('/') ? null : node;
}

/** The manufacturer and model of the OVMS vehicle type codes (F field 5) that are well known. */
const VEHICLE_TYPES: Readonly<Record<string, readonly [string, string]>> = {
  TR: ['Tesla', 'Roadster'],
  TR2: ['Tesla', 'Roadster 2.x'],
  NL: ['Nissan', 'Leaf'],
  NL2: ['Nissan', 'e-NV200'],
  RT: ['Renault', 'Twizy'],
  RZ: ['Renault', 'Zoe'],
  RZ2: ['Renault', 'Zoe Ph2'],
  KS: ['Kia', 'Soul EV'],
  KN: ['Kia', 'e-Niro'],
  HIONVFL: ['Hyundai', 'Ioniq (facelift)'],
  MI: ['Mitsubishi', 'i-MiEV'],
  VA: ['Chevrolet', 'Volt / Opel Ampera'],
  SE: ['Smart', 'ED/EQ 4th gen'],
  SQ: ['Smart', 'EQ'],
  VWUP: ['Volkswagen', 'e-Up'],
  MG1: ['MG', 'ZS EV'],
  BMWI3: ['BMW', 'i3'],
  JA: ['Jaguar', 'I-Pace'],
  TYPE: ['Think', 'City'],
  ME: ['Mercedes-Benz', 'B250e'],
};

export interface HaVehicle {
  vehicleId: string;
  /** The vehicle's name, or its id. */
  name: string;
  /** `ovms/<owner>/<vehicle as its topics spell it>/`. */
  topicPrefix: string;
  /** S field 2. */
  distanceUnit: 'K' | 'M';
  /** F field 5 (vehicle type code), when known. */
  vehicleType?: string;
  /** F field 1 (module firmware), when known. */
  firmware?: string;
  /** F field 2, when known. */
  vin?: string;
}

export interface HaServer {
  /** vts's version. */
  version: string;
  /** The dashboard's address (`--public-url`), when configured. */
  publicUrl?: string;
}

type Component = Record<string, unknown>;

/** km → mi in a value template (the metric is km; HA shows the vehicle's unit). */
const MI_TEMPLATE = '{{ (value | float(0) * 0.621371) | round(1) }}';

/**
 * The discovery payload of one vehicle. Components: see the list; every one has a
 * `unique_id` (`<node id>_<component>`); the live ones follow the availability topic, while the
 * last known location, odometer, lifetime energy and last-seen time stay available while the car
 * sleeps (and `connected` shows the link itself).
 */
export function discoveryPayload(v: HaVehicle, server: HaServer): Record<string, unknown> {
  const node = haNodeId(v.vehicleId);
  const t = (suffix: string): string => `${v.topicPrefix}${suffix}`;
  const metric = (name: string): string => t(`metric/${name.replace(/\./g, '/')}`);
  const miles = v.distanceUnit === 'M';
  const availability = [{ topic: t(VTS_TOPICS.availability), payload_available: ONLINE, payload_not_available: OFFLINE }];
  const live = { availability };
  const sensor = (name: string, extra: Component): Component => ({ platform: 'sensor', name, ...extra });
  const distance = (name: string, m: string, stateClass: string, extra: Component = {}): Component =>
    sensor(name, {
      device_class: 'distance',
      unit_of_measurement: miles ? 'mi' : 'km',
      state_class: stateClass,
      state_topic: metric(m),
      ...(miles ? { value_template: MI_TEMPLATE } : {}),
      suggested_display_precision: 0,
      ...extra,
    });
  const temperature = (name: string, m: string, extra: Component = {}): Component =>
    sensor(name, { device_class: 'temperature', unit_of_measurement: '°C', state_class: 'measurement', state_topic: metric(m), ...live, ...extra });
  const yesNo = { payload_on: 'yes', payload_off: 'no' };
  const components: Record<string, Component> = {
    soc: sensor('State of charge', { device_class: 'battery', unit_of_measurement: '%', state_class: 'measurement', state_topic: metric('v.b.soc'), ...live }),
    range_est: distance('Estimated range', 'v.b.range.est', 'measurement', live),
    range_ideal: distance('Ideal range', 'v.b.range.ideal', 'measurement', live),
    odometer: distance('Odometer', 'v.p.odometer', 'total_increasing'),
    charge_power: sensor('Charge power', { device_class: 'power', unit_of_measurement: 'kW', state_class: 'measurement', state_topic: metric('v.c.power'), suggested_display_precision: 1, ...live }),
    charge_energy: sensor('Charge energy', { device_class: 'energy', unit_of_measurement: 'kWh', state_class: 'total_increasing', state_topic: metric('v.c.kwh'), suggested_display_precision: 1, ...live }),
    energy_charged_total: sensor('Energy charged', {
      device_class: 'energy',
      unit_of_measurement: 'kWh',
      state_class: 'total_increasing',
      state_topic: t(VTS_TOPICS.energyChargedTotal),
      suggested_display_precision: 1,
    }),
    charging: { platform: 'binary_sensor', name: 'Charging', device_class: 'battery_charging', state_topic: metric('v.c.charging'), ...yesNo, ...live },
    plugged: { platform: 'binary_sensor', name: 'Plugged in', device_class: 'plug', state_topic: metric('v.c.pilot'), ...yesNo, ...live },
    // the lock class is on when unlocked
    locked: { platform: 'binary_sensor', name: 'Lock', device_class: 'lock', state_topic: metric('v.e.locked'), payload_on: 'no', payload_off: 'yes', ...live },
    doors: { platform: 'binary_sensor', name: 'Doors', device_class: 'door', state_topic: t(VTS_TOPICS.doors), ...yesNo, ...live },
    v12: sensor('12 V battery', {
      device_class: 'voltage',
      unit_of_measurement: 'V',
      state_class: 'measurement',
      state_topic: metric('v.b.12v.voltage'),
      suggested_display_precision: 1,
      entity_category: 'diagnostic',
      ...live,
    }),
    temp_ambient: temperature('Outside temperature', 'v.e.temp'),
    temp_battery: temperature('Battery temperature', 'v.b.temp'),
    temp_cabin: temperature('Cabin temperature', 'v.e.cabintemp'),
    location: { platform: 'device_tracker', name: 'Location', source_type: 'gps', json_attributes_topic: t(VTS_TOPICS.location) },
    last_seen: sensor('Last seen', { device_class: 'timestamp', state_topic: t(VTS_TOPICS.lastSeen), entity_category: 'diagnostic' }),
    connected: {
      platform: 'binary_sensor',
      name: 'Connected',
      device_class: 'connectivity',
      state_topic: t(VTS_TOPICS.availability),
      payload_on: ONLINE,
      payload_off: OFFLINE,
      entity_category: 'diagnostic',
    },
    charge: {
      platform: 'switch',
      name: 'Charge',
      icon: 'mdi:ev-station',
      state_topic: metric('v.c.charging'),
      state_on: 'yes',
      state_off: 'no',
      command_topic: t(`${VTS_TOPICS.set}charge`),
      payload_on: 'ON',
      payload_off: 'OFF',
      ...live,
    },
    climate: {
      platform: 'switch',
      name: 'Climate',
      icon: 'mdi:air-conditioner',
      state_topic: metric('v.e.hvac'),
      state_on: 'yes',
      state_off: 'no',
      command_topic: t(`${VTS_TOPICS.set}climate`),
      payload_on: 'ON',
      payload_off: 'OFF',
      ...live,
    },
    wakeup: { platform: 'button', name: 'Wake up', icon: 'mdi:sleep-off', command_topic: t(`${VTS_TOPICS.set}wakeup`), payload_press: 'PRESS', entity_category: 'config', ...live },
  };
  for (const [id, c] of Object.entries(components)) c.unique_id = `${node}_${id}`;
  const known = v.vehicleType === undefined ? undefined : VEHICLE_TYPES[v.vehicleType.toUpperCase()];
  const device: Record<string, unknown> = { identifiers: [node], name: v.name };
  if (known) Object.assign(device, { manufacturer: known[0], model: known[1] });
  else if (v.vehicleType) Object.assign(device, { manufacturer: 'OVMS', model: v.vehicleType });
  else device.manufacturer = 'OVMS';
  if (v.firmware) device.sw_version = v.firmware;
  if (v.vin) device.serial_number = v.vin;
  if (server.publicUrl) device.configuration_url = `${server.publicUrl.replace(/\/+$/, '')}/#/vehicle/${encodeURIComponent(v.vehicleId)}`;
  const origin: Record<string, unknown> = { name: 'vts', sw_version: server.version };
  if (server.publicUrl) origin.support_url = server.publicUrl;
  return { device, origin, components, qos: 0 };
}
