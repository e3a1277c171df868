/**
 * vts's Home Assistant discovery (src/core/ha/discovery.ts) against HA's documented schema
 * (test/support/ha-schema.ts): a km and a miles vehicle, with and without a public URL, known,
 * unknown and absent vehicle types, an odd vehicle id; every component the issue lists, with its
 * platform, device class, unit and state class; every template rendered as HA would
 * (test/support/ha-template.ts) against the payloads a v3 module publishes; node ids as the issue
 * spells them, with the set check that sees two vehicles sharing one; and the validator itself
 * shown to catch each kind of mistake.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { locationOf } from '../../../src/core/ha/derived.js';
import { discoveryPayload, discoveryTopic, haNodeId, OFFLINE, ONLINE, VTS_TOPICS, type HaServer, type HaVehicle } from '../../../src/core/ha/discovery.js';
import { topicPrefix } from '../../../src/core/mqtt/topics.js';
import { templatesOf, validateDeviceDiscovery, validateDiscoverySet, type DiscoveryMessage } from '../../support/ha-schema.js';
import { pyFloatRepr, pyRound, renderValueTemplate } from '../../support/ha-template.js';

type Obj = Record<string, unknown>;
const PLAIN: HaServer = { version: '1.4.0' };
const PUBLIC: HaServer = { version: '1.4.0', publicUrl: 'https://vts.example.org/' };
const vehicle = (over: Partial<HaVehicle> = {}): HaVehicle => ({
  vehicleId: 'DEMO1',
  name: 'Demo Leaf',
  topicPrefix: topicPrefix('alice', 'DEMO1'),
  distanceUnit: 'K',
  vehicleType: 'NL',
  firmware: '3.3.004-32-g125e0b0',
  vin: 'SJNFAAZE0U1234567',
  ...over,
});
const message = (v: HaVehicle, s: HaServer): DiscoveryMessage => ({ topic: discoveryTopic('homeassistant', v.vehicleId), payload: JSON.stringify(discoveryPayload(v, s)) });
const components = (v: HaVehicle, s: HaServer = PLAIN): Record<string, Obj> => discoveryPayload(v, s).components as Record<string, Obj>;
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const VARIANTS: [string, HaVehicle][] = [
  ['km, known type', vehicle()],
  ['miles, known type', vehicle({ distanceUnit: 'M', vehicleType: 'TR' })],
  ['unknown type', vehicle({ vehicleType: 'XYZ9' })],
  ['no type, firmware, VIN', vehicle({ vehicleType: undefined, firmware: undefined, vin: undefined })],
  // an id of characters HA's topics and URLs do not take; its topics as a v3 module spells them
  ['odd id', vehicle({ vehicleId: 'my car/1#+', name: 'my car/1#+', topicPrefix: topicPrefix('alice', 'MYCAR1') })],
];

test('every payload variant is one Home Assistant takes as it is', () => {
  for (const [what, v] of VARIANTS) {
    for (const s of [PLAIN, PUBLIC]) {
      assert.deepEqual(validateDeviceDiscovery(message(v, s)), [], `${what}, ${s.publicUrl ? 'with' : 'without'} a public URL`);
    }
  }
  const odd = discoveryPayload(VARIANTS[4]![1], PUBLIC) as { device: Obj };
  assert.match(discoveryTopic('homeassistant', 'my car/1#+'), /^homeassistant\/device\/[A-Za-z0-9_-]+\/config$/);
  assert.equal(odd.device.configuration_url, 'https://vts.example.org/#/vehicle/my%20car%2F1%23%2B');
  assert.deepEqual(odd.device.identifiers, [haNodeId('my car/1#+')]);
});

test('the components the issue lists, with their platform, device class, unit and state class', () => {
  const want: Record<string, [string, string | undefined, string | undefined, string | undefined]> = {
    soc: ['sensor', 'battery', '%', 'measurement'],
    range_est: ['sensor', 'distance', 'km', 'measurement'],
    range_ideal: ['sensor', 'distance', 'km', 'measurement'],
    odometer: ['sensor', 'distance', 'km', 'total_increasing'],
    charge_power: ['sensor', 'power', 'kW', 'measurement'],
    charge_energy: ['sensor', 'energy', 'kWh', 'total_increasing'],
    energy_charged_total: ['sensor', 'energy', 'kWh', 'total_increasing'],
    charging: ['binary_sensor', 'battery_charging', undefined, undefined],
    plugged: ['binary_sensor', 'plug', undefined, undefined],
    locked: ['binary_sensor', 'lock', undefined, undefined],
    doors: ['binary_sensor', 'door', undefined, undefined],
    v12: ['sensor', 'voltage', 'V', 'measurement'],
    temp_ambient: ['sensor', 'temperature', '°C', 'measurement'],
    temp_battery: ['sensor', 'temperature', '°C', 'measurement'],
    temp_cabin: ['sensor', 'temperature', '°C', 'measurement'],
    location: ['device_tracker', undefined, undefined, undefined],
    last_seen: ['sensor', 'timestamp', undefined, undefined],
    charge: ['switch', undefined, undefined, undefined],
    climate: ['switch', undefined, undefined, undefined],
    wakeup: ['button', undefined, undefined, undefined],
  };
  for (const unit of ['K', 'M'] as const) {
    const v = vehicle({ distanceUnit: unit });
    const c = components(v);
    for (const [id, [platform, deviceClass, u, stateClass]] of Object.entries(want)) {
      assert.ok(c[id], `${id} is there`);
      const distance = deviceClass === 'distance' && unit === 'M';
      assert.deepEqual(
        [c[id]!.platform, c[id]!.device_class, c[id]!.unit_of_measurement, c[id]!.state_class],
        [platform, deviceClass, distance ? 'mi' : u, stateClass],
        `${id} (${unit})`,
      );
      assert.equal(c[id]!.unique_id, `${haNodeId(v.vehicleId)}_${id}`);
    }
    const p = v.topicPrefix;
    assert.equal(c.soc!.state_topic, `${p}metric/v/b/soc`);
    assert.equal(c.odometer!.state_topic, `${p}metric/v/p/odometer`);
    // the lock device class is on when unlocked: on = the metric says not locked
    assert.deepEqual([c.locked!.payload_on, c.locked!.payload_off], ['no', 'yes']);
    assert.deepEqual([c.location!.json_attributes_topic, c.location!.source_type, c.location!.state_topic], [`${p}${VTS_TOPICS.location}`, 'gps', undefined]);
    assert.equal(c.last_seen!.state_topic, `${p}${VTS_TOPICS.lastSeen}`);
    for (const id of ['charge', 'climate', 'wakeup']) assert.equal(c[id]!.command_topic, `${p}${VTS_TOPICS.set}${id}`);
  }
});

test('every template renders as Home Assistant would, on the payloads a v3 module publishes', () => {
  assert.deepEqual(templatesOf(discoveryPayload(vehicle(), PLAIN)), [], 'a km vehicle needs no template');
  const miles = discoveryPayload(vehicle({ distanceUnit: 'M' }), PLAIN);
  const templates = templatesOf(miles);
  assert.deepEqual(templates.map((t) => t.path).sort(), ['root.components.odometer.value_template', 'root.components.range_est.value_template', 'root.components.range_ideal.value_template']);
  // km → mi, rounded to 0.1 as Python's round() does (the states checked against Python 3); what is not a number renders empty (HA ignores it)
  const cases: [string, string][] = [['100', '62.1'], ['123.4', '76.7'], ['0', '0.0'], ['456789.5', '283835.7'], [' 12 ', '7.5'], ['', ''], ['yes', ''], ['nan', ''], ['{"a":1}', '']];
  for (const { path, template } of templates) {
    for (const [payload, state] of cases) assert.equal(renderValueTemplate(template, payload), state, `${path} on ${JSON.stringify(payload)}`);
  }
});

test("two-state components and availability expect the texts their topics carry; the tracker's attributes are numbers", () => {
  const v = vehicle();
  const c = components(v);
  const p = v.topicPrefix;
  for (const [id, comp] of Object.entries(c)) {
    for (const a of (comp.availability as Obj[] | undefined) ?? []) {
      assert.deepEqual([a.topic, a.payload_available, a.payload_not_available], [`${p}${VTS_TOPICS.availability}`, ONLINE, OFFLINE], id);
    }
    if (comp.platform !== 'binary_sensor' && comp.platform !== 'switch') continue;
    const texts = comp.platform === 'switch' ? [comp.state_on, comp.state_off] : [comp.payload_on, comp.payload_off];
    // v3 metrics and vts/doors say booleans as yes/no (docs/protocol/mqtt-v3.md §3.1); vts/availability online/offline
    const carried = comp.state_topic === `${p}${VTS_TOPICS.availability}` ? [ONLINE, OFFLINE] : ['yes', 'no'];
    assert.deepEqual([...texts].sort(), [...carried].sort(), `${id} reads ${String(comp.state_topic)}`);
  }
  // the tracker's attributes: numbers (HA ignores coordinates that are not)
  const at = JSON.parse(JSON.stringify(locationOf('51.5007,-0.1246,90,12,1,1,0,0,0,0,0,0,0,0,0,0,1.2'))) as Obj;
  assert.deepEqual(at, { latitude: 51.5007, longitude: -0.1246, gps_accuracy: 6 });
});

test('the renderer follows HA: float and round with and without defaults, is_number, Python output', () => {
  assert.equal(renderValueTemplate('{{ value | float }}', '5'), '5.0');
  assert.equal(renderValueTemplate('{{ value | float(0) }}', 'unknown'), '0');
  assert.throws(() => renderValueTemplate('{{ value | float }}', 'unknown'), /float got invalid input 'unknown' but no default/);
  assert.throws(() => renderValueTemplate('{{ value | round(1) }}', 'x'), /round got invalid input/);
  assert.equal(renderValueTemplate("{{ value | round(1, default='-') }}", 'x'), '-');
  assert.equal(renderValueTemplate('{{ value | round }}', '2.5'), '2');
  assert.equal(renderValueTemplate('{{ value | round(0) }}', '3.5'), '4');
  assert.equal(renderValueTemplate('{{ value_json.soc | round(1) }}', '{"soc": 81.25}'), '81.2');
  assert.equal(renderValueTemplate('{{ value | is_number }} {{ none }}', '1e3'), 'True None');
  assert.deepEqual([pyRound(0.125, 2), pyRound(2.675, 2), pyRound(-1.5, 0), pyRound(62.1371, 1)], [0.12, 2.67, -2, 62.1]);
  assert.deepEqual([pyFloatRepr(62), pyFloatRepr(1e16), pyFloatRepr(0.00001), pyFloatRepr(-0.5)], ['62.0', '1e+16', '1e-05', '-0.5']);
});

test('node ids: characters outside [A-Za-z0-9_-] as `_`; the set check sees two vehicles sharing one', () => {
  assert.equal(haNodeId('DEMO1'), 'vts_DEMO1');
  assert.equal(haNodeId('my car/1#+'), 'vts_my_car_1__');
  assert.equal(haNodeId('CAR.1'), 'vts_CAR_1');
  fc.assert(
    fc.property(fc.string(), (a) => {
      assert.match(haNodeId(a), /^vts_[A-Za-z0-9_-]*$/);
      assert.equal(haNodeId(a).length, 4 + a.length);
    }),
    { numRuns: 2000 },
  );
  const cars = ['CAR.1', 'CAR-1'].map((id) => message(vehicle({ vehicleId: id, topicPrefix: topicPrefix('alice', id) }), PLAIN));
  assert.deepEqual(validateDiscoverySet(cars), []);
  // CAR.1 and CAR_1 share a node id: the announcer publishes only one of them (test/ha/ha-discovery.test.ts)
  const shared = [cars[0]!, message(vehicle({ vehicleId: 'CAR_1', topicPrefix: topicPrefix('alice', 'CAR_1') }), PLAIN)];
  assert.ok(validateDiscoverySet(shared).length >= 1, 'the set check sees a shared topic');
});

/** The problems the validator finds in the demo payload once `change` is made to it. */
function problemsAfter(change: (p: Obj & { components: Record<string, Obj>; device: Obj; origin: Obj }) => void, topic?: string): string[] {
  const payload = clone(discoveryPayload(vehicle(), PUBLIC)) as Obj & { components: Record<string, Obj>; device: Obj; origin: Obj };
  change(payload);
  return validateDeviceDiscovery({ topic: topic ?? discoveryTopic('homeassistant', 'DEMO1'), payload });
}

test('the validator catches each kind of mistake', () => {
  const cases: [string, Parameters<typeof problemsAfter>[0], RegExp, string?][] = [
    ['a unit of another device class', (p) => (p.components.soc!.unit_of_measurement = 'kWh'), /components\.soc\.unit_of_measurement: "kWh" is not a unit of device class battery/],
    ['a distance in a unit HA lacks', (p) => (p.components.odometer!.unit_of_measurement = 'miles'), /odometer\.unit_of_measurement/],
    ['a state class the device class forbids', (p) => (p.components.charge_energy!.state_class = 'measurement'), /charge_energy\.state_class: "measurement" is impossible for device class energy/],
    ['a state class HA lacks', (p) => (p.components.soc!.state_class = 'average'), /soc\.state_class: not measurement/],
    ['a timestamp with a unit', (p) => (p.components.last_seen!.unit_of_measurement = 's'), /last_seen\.unit_of_measurement/],
    ['a timestamp with a state class', (p) => (p.components.last_seen!.state_class = 'measurement'), /last_seen\.state_class/],
    ['a negative display precision', (p) => (p.components.v12!.suggested_display_precision = -1), /v12\.suggested_display_precision/],
    ['a missing unique_id', (p) => delete p.components.v12!.unique_id, /components\.v12\.unique_id: missing/],
    ['a unique_id twice', (p) => (p.components.v12!.unique_id = p.components.soc!.unique_id), /v12\.unique_id: .* also soc's/],
    ['entity_category config on a sensor', (p) => (p.components.soc!.entity_category = 'config'), /soc\.entity_category: config on a sensor/],
    ['entity_category config on a binary sensor', (p) => (p.components.doors!.entity_category = 'config'), /doors\.entity_category: config on a binary_sensor/],
    ['an entity category HA lacks', (p) => (p.components.wakeup!.entity_category = 'system'), /wakeup\.entity_category/],
    ['a sensor device class HA lacks', (p) => (p.components.soc!.device_class = 'state_of_charge'), /soc\.device_class: not a sensor device class/],
    ['a binary sensor device class HA lacks', (p) => (p.components.charging!.device_class = 'charging'), /charging\.device_class/],
    ['a platform HA lacks', (p) => (p.components.soc!.platform = 'gauge'), /soc\.platform/],
    ['no platform', (p) => delete p.components.soc!.platform, /soc\.platform/],
    ['an option the platform drops', (p) => (p.components.soc!.payload_on = 'yes'), /soc\.payload_on: not an option of sensor/],
    ['a switch without command topic', (p) => delete p.components.charge!.command_topic, /components\.charge: no command_topic/],
    ['a button without command topic', (p) => delete p.components.wakeup!.command_topic, /components\.wakeup: no command_topic/],
    ['a tracker without a topic', (p) => delete p.components.location!.json_attributes_topic, /location: neither state_topic nor json_attributes_topic/],
    ['a tracker source HA lacks', (p) => (p.components.location!.source_type = 'satellite'), /location\.source_type/],
    ['a wildcard in a state topic', (p) => (p.components.soc!.state_topic = 'ovms/alice/+/metric/v/b/soc'), /soc\.state_topic: a wildcard/],
    ['a wildcard in a command topic', (p) => (p.components.charge!.command_topic = 'ovms/alice/DEMO1/vts/set/#'), /charge\.command_topic: a wildcard in a publish topic/],
    ['an empty topic level', (p) => (p.components.soc!.state_topic = 'ovms//DEMO1/metric/v/b/soc'), /soc\.state_topic: an empty level/],
    ['a topic that is not a string', (p) => (p.components.soc!.state_topic = 42), /soc\.state_topic: not a string/],
    ['an availability entry without topic', (p) => ((p.components.soc!.availability as Obj[])[0] = { payload_available: 'online' }), /soc\.availability\[0\]: no topic/],
    ['availability and availability_topic together', (p) => (p.components.soc!.availability_topic = 'a/b'), /components\.soc: availability and availability_topic together/],
    ['a payload_on that is not a string', (p) => (p.components.plugged!.payload_on = true), /plugged\.payload_on: not a string/],
    ['an icon without prefix', (p) => (p.components.charge!.icon = 'ev-station'), /charge\.icon/],
    ['an unknown root option', (p) => (p.retain = true), /root\.retain: not a device discovery option/],
    ['no origin', (p) => delete (p as Obj).origin, /^origin: missing/],
    ['an origin without name', (p) => delete p.origin.name, /origin\.name: missing/],
    ['a configuration URL without scheme', (p) => (p.device.configuration_url = 'vts.example.org/#/vehicle/DEMO1'), /device\.configuration_url: not an http\(s\)/],
    ['a device without identifiers', (p) => delete p.device.identifiers, /^device: no identifiers/],
    ['an unknown device option', (p) => (p.device.vin = 'X'), /device\.vin: not a device option/],
    ['no components', (p) => delete (p as Obj).components, /^components: missing/],
    ['a template that is not a string', (p) => (p.components.odometer!.value_template = 1), /odometer\.value_template: not a template string/],
    ['a discovery topic of another form', () => undefined, /^topic: not homeassistant\/device/, 'homeassistant/sensor/vts.DEMO1/config'],
  ];
  for (const [what, change, problem, topic] of cases) {
    const found = problemsAfter(change, topic);
    assert.ok(found.some((line) => problem.test(line)), `${what}: ${problem} in ${JSON.stringify(found)}`);
  }
  assert.deepEqual(problemsAfter(() => undefined), [], 'and the unchanged payload passes');
});

test("abbreviated keys are read as HA reads them; a prefix with wildcards is the caller's mistake and shows", () => {
  const p = clone(discoveryPayload(vehicle(), PUBLIC)) as Obj & { components: Record<string, Obj>; device: Obj };
  const short = { dev: { ids: p.device.identifiers, name: p.device.name }, o: p.origin, cmps: {} as Record<string, Obj>, qos: 0 };
  for (const [id, c] of Object.entries(p.components)) {
    const { platform, unique_id, state_topic, unit_of_measurement, ...rest } = c;
    short.cmps[id] = { p: platform, uniq_id: unique_id, ...(state_topic ? { stat_t: state_topic } : {}), ...(unit_of_measurement ? { unit_of_meas: unit_of_measurement } : {}), ...rest };
  }
  assert.deepEqual(validateDeviceDiscovery({ topic: discoveryTopic('homeassistant', 'DEMO1'), payload: short }), []);
  const wild = validateDeviceDiscovery(message(vehicle({ vehicleId: 'my car/1#+', topicPrefix: topicPrefix('alice', 'my car/1#+') }), PLAIN));
  assert.ok(wild.some((l) => /components\.soc\.state_topic: a wildcard/.test(l)) && wild.some((l) => /charge\.command_topic: a wildcard/.test(l)), JSON.stringify(wild));
});
