/**
 * A validator of Home Assistant MQTT *device-based* discovery messages, after HA's documented rules
 * (the facts and their sources: test/support/ha-rules.ts). It reports, as `path: why` lines, every
 * mistake HA would refuse (the whole payload, or one component) and every one HA would take but
 * mis-handle (an option it silently drops, a unit or state class its statistics reject, a category
 * that keeps the entity from being added). A few rules are vts's own, stricter than HA, and say so:
 * no wildcard and no empty level in any topic, strings where HA would coerce a number.
 */
import {
  ABBREVIATIONS, AVAILABILITY_ENTRY_KEYS, AVAILABILITY_MODES, BINARY_SENSOR_DEVICE_CLASSES, BUTTON_DEVICE_CLASSES,
  DEVICE_ABBREVIATIONS, DEVICE_KEYS, DISCOVERY_ID, ENTITY_CATEGORIES, ENTITY_PLATFORMS, ORIGIN_ABBREVIATIONS,
  ORIGIN_KEYS, PLATFORM_OPTIONS, ROOT_KEYS, SENSOR_DEVICE_CLASSES, SENSOR_STATE_CLASSES, SHARED_OPTIONS, SOURCE_TYPES,
  SUPPORTED_COMPONENTS, SWITCH_DEVICE_CLASSES,
} from './ha-rules.js';

export interface DiscoveryMessage {
  topic: string;
  /** The payload as published (JSON text) or already parsed. */
  payload: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

class Problems {
  readonly list: string[] = [];
  add(path: string, why: string): void {
    this.list.push(`${path}: ${why}`);
  }
}

/** HA replaces each abbreviated key by its full name (the abbreviation wins when both are there). */
function expand(o: Obj, table: Readonly<Record<string, string>>, path: string, p: Problems): Obj {
  const out: Obj = { ...o };
  for (const [short, full] of Object.entries(table)) {
    if (!(short in o)) continue;
    if (full in o) p.add(`${path}.${short}`, `both ${short} and ${full}: HA keeps the abbreviation's value only`);
    out[full] = o[short];
    delete out[short];
  }
  return out;
}

/** util.py valid_topic (+ the subscribe/publish wildcard rules), and vts's: no wildcard, no empty level. */
export function topicProblem(t: unknown, use: 'subscribe' | 'publish'): string | null {
  if (!isStr(t)) return `not a string (${show(t)})`;
  if (t === '') return 'empty';
  if (Buffer.byteLength(t) > 65535) return 'longer than 65535 bytes';
  for (const ch of t) {
    const c = ch.codePointAt(0)!;
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) === 0xfffe) {
      return `control or non-character U+${c.toString(16).padStart(4, '0')} (HA refuses it)`;
    }
  }
  if (/[+#]/.test(t)) {
    return use === 'publish' ? 'a wildcard in a publish topic (HA refuses it)' : 'a wildcard (HA refuses one inside a level; vts subscribes to exact topics)';
  }
  if (t.split('/').includes('')) return 'an empty level (vts rule: a missing id)';
  return null;
}

/** config_validation.configuration_url: http(s) with a host, or homeassistant://. */
export function urlProblem(u: unknown): string | null {
  if (!isStr(u)) return `not a string (${show(u)})`;
  if (u.startsWith('homeassistant://')) return null;
  try {
    const url = new URL(u);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return null;
  } catch {
    // fall through
  }
  return `not an http(s) or homeassistant:// URL: ${show(u)} (HA refuses the whole payload)`;
}

function checkTopic(c: Obj, key: string, path: string, p: Problems): void {
  if (!(key in c)) return;
  const why = topicProblem(c[key], key === 'command_topic' ? 'publish' : 'subscribe');
  if (why) p.add(`${path}.${key}`, why);
}

/** The availability options of the root or of a component (MQTT_AVAILABILITY_SCHEMA). */
function checkAvailability(c: Obj, path: string, p: Problems): void {
  if ('availability' in c && 'availability_topic' in c) p.add(path, 'availability and availability_topic together (HA refuses: exclusive)');
  checkTopic(c, 'availability_topic', path, p);
  if ('availability_mode' in c && !AVAILABILITY_MODES.has(c.availability_mode as string)) p.add(`${path}.availability_mode`, `not all/any/latest: ${show(c.availability_mode)}`);
  for (const k of ['payload_available', 'payload_not_available', 'availability_template']) {
    if (k in c && !isStr(c[k])) p.add(`${path}.${k}`, `not a string: ${show(c[k])}`);
  }
  if (!('availability' in c)) return;
  const list = Array.isArray(c.availability) ? c.availability : [c.availability];
  if (list.length === 0) p.add(`${path}.availability`, 'an empty list');
  list.forEach((raw, i) => {
    const at = `${path}.availability[${i}]`;
    if (!isObj(raw)) return p.add(at, `not a mapping: ${show(raw)}`);
    const e = expand(raw, ABBREVIATIONS, at, p);
    for (const k of Object.keys(e)) if (!AVAILABILITY_ENTRY_KEYS.has(k)) p.add(`${at}.${k}`, 'not an availability option (HA refuses it)');
    if (!('topic' in e)) p.add(at, 'no topic (required)');
    checkTopic(e, 'topic', at, p);
    for (const k of ['payload_available', 'payload_not_available', 'value_template']) {
      if (k in e && !isStr(e[k])) p.add(`${at}.${k}`, `not a string: ${show(e[k])}`);
    }
  });
}

function checkDevice(raw: unknown, p: Problems): void {
  if (!isObj(raw)) return p.add('device', 'missing or not a mapping (required for device discovery)');
  const d = expand(raw, DEVICE_ABBREVIATIONS, 'device', p);
  for (const k of Object.keys(d)) if (!DEVICE_KEYS.has(k)) p.add(`device.${k}`, 'not a device option (HA refuses the whole payload)');
  const ids = d.identifiers === undefined ? [] : Array.isArray(d.identifiers) ? d.identifiers : [d.identifiers];
  ids.forEach((id, i) => !isStr(id) && p.add(`device.identifiers[${i}]`, `not a string: ${show(id)}`));
  const cns = d.connections === undefined ? [] : Array.isArray(d.connections) ? d.connections : [d.connections];
  cns.forEach((cn, i) => (!Array.isArray(cn) || cn.length !== 2 || !cn.every(isStr)) && p.add(`device.connections[${i}]`, `not a [type, id] pair: ${show(cn)}`));
  if (ids.length === 0 && cns.length === 0) p.add('device', 'no identifiers nor connections (HA refuses it)');
  for (const k of DEVICE_KEYS) {
    if (k === 'identifiers' || k === 'connections' || !(k in d)) continue;
    if (k === 'configuration_url') {
      const why = urlProblem(d[k]);
      if (why) p.add('device.configuration_url', why);
    } else if (!isStr(d[k])) p.add(`device.${k}`, `not a string: ${show(d[k])}`);
  }
}

function checkOrigin(raw: unknown, p: Problems): void {
  if (!isObj(raw)) return p.add('origin', 'missing or not a mapping (required for device discovery)');
  const o = expand(raw, ORIGIN_ABBREVIATIONS, 'origin', p);
  for (const k of Object.keys(o)) if (!ORIGIN_KEYS.has(k)) p.add(`origin.${k}`, 'not an origin option (HA refuses the whole payload)');
  if (!isStr(o.name) || o.name === '') p.add('origin.name', 'missing or not a string (required)');
  if ('sw_version' in o && !isStr(o.sw_version)) p.add('origin.sw_version', `not a string: ${show(o.sw_version)}`);
  if ('support_url' in o) {
    const why = urlProblem(o.support_url);
    if (why) p.add('origin.support_url', why);
  }
}

/** discovery.py _replace_topic_base: `~` at the start or end of a `…topic` value. */
function replaceTopicBase(c: Obj): Obj {
  if (!isStr(c['~'])) return c;
  const base = c['~'];
  const sub = (v: unknown): unknown => (isStr(v) ? v.replace(/^~/, base).replace(/~$/, base) : v);
  const out: Obj = {};
  for (const [k, v] of Object.entries(c)) if (k !== '~') out[k] = k.endsWith('topic') ? sub(v) : v;
  if (Array.isArray(out.availability)) out.availability = out.availability.map((e) => (isObj(e) && 'topic' in e ? { ...e, topic: sub(e.topic) } : e));
  return out;
}

const nonNegativeInt = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const BOOLEANS = ['enabled_by_default', 'force_update', 'optimistic', 'retain'];
const NON_NEGATIVE_INTS = ['expire_after', 'off_delay', 'suggested_display_precision'];
const STRINGS = ['name', 'payload_on', 'payload_off', 'state_on', 'state_off', 'payload_press', 'payload_home', 'payload_not_home', 'payload_reset', 'unique_id', 'encoding', 'object_id', 'default_entity_id'];

/** One component after the root's shared options are merged in, against its platform's schema. */
function checkComponent(platform: string, c: Obj, path: string, p: Problems): void {
  const spec = PLATFORM_OPTIONS[platform];
  if (!spec) return p.add(path, `platform ${platform}: not modelled by this validator (extend test/support/ha-rules.ts)`);
  for (const k of Object.keys(c)) if (!spec.keys.has(k)) p.add(`${path}.${k}`, `not an option of ${platform} (HA drops it)`);
  for (const k of spec.required) if (!(k in c)) p.add(path, `no ${k} (required for ${platform})`);
  for (const k of Object.keys(c)) {
    if (k.endsWith('_topic')) checkTopic(c, k, path, p);
    else if (k.endsWith('_template') && (!isStr(c[k]) || c[k] === '')) p.add(`${path}.${k}`, `not a template string: ${show(c[k])}`);
  }
  for (const k of BOOLEANS) if (k in c && typeof c[k] !== 'boolean') p.add(`${path}.${k}`, `not a boolean: ${show(c[k])}`);
  for (const k of NON_NEGATIVE_INTS) if (k in c && !nonNegativeInt(c[k])) p.add(`${path}.${k}`, `not a non-negative integer: ${show(c[k])}`);
  for (const k of STRINGS) if (k in c && !isStr(c[k]) && !(k === 'name' && c[k] === null)) p.add(`${path}.${k}`, `not a string (vts rule: HA compares texts): ${show(c[k])}`);
  if ('qos' in c && c.qos !== 0 && c.qos !== 1 && c.qos !== 2) p.add(`${path}.qos`, `not 0, 1 or 2: ${show(c.qos)}`);
  if ('icon' in c && !(isStr(c.icon) && /^[^:\s]+:[^:\s]+$/.test(c.icon))) p.add(`${path}.icon`, `not prefix:name: ${show(c.icon)}`);
  if ('entity_picture' in c && urlProblem(c.entity_picture)) p.add(`${path}.entity_picture`, `not a URL: ${show(c.entity_picture)}`);
  if ('entity_category' in c) {
    if (!ENTITY_CATEGORIES.has(c.entity_category as string)) p.add(`${path}.entity_category`, `not config or diagnostic: ${show(c.entity_category)}`);
    else if (c.entity_category === 'config' && (platform === 'sensor' || platform === 'binary_sensor')) {
      p.add(`${path}.entity_category`, `config on a ${platform} (HA refuses to add the entity)`);
    }
  }
  checkAvailability(c, path, p);
  const dc = c.device_class;
  const classes = platform === 'binary_sensor' ? BINARY_SENSOR_DEVICE_CLASSES : platform === 'switch' ? SWITCH_DEVICE_CLASSES : platform === 'button' ? BUTTON_DEVICE_CLASSES : null;
  if (classes && dc !== undefined && dc !== null && !classes.has(dc as string)) p.add(`${path}.device_class`, `not a ${platform} device class: ${show(dc)}`);
  if (platform === 'sensor') checkSensor(c, path, p);
  if (platform === 'device_tracker') {
    if ('source_type' in c && !SOURCE_TYPES.has(c.source_type as string)) p.add(`${path}.source_type`, `not gps/router/bluetooth/bluetooth_le: ${show(c.source_type)}`);
    if (!('state_topic' in c) && !('json_attributes_topic' in c)) p.add(path, 'neither state_topic nor json_attributes_topic (HA refuses it)');
    if ('state_topic' in c) p.add(`${path}.state_topic`, 'deprecated for device_tracker (stops working with HA 2027.1): use json_attributes_topic');
  }
}

/** sensor/const.py: the device class, its units and its state classes; the options/enum rules. */
function checkSensor(c: Obj, path: string, p: Problems): void {
  const dc = c.device_class;
  const unit = c.unit_of_measurement ?? null;
  const sc = c.state_class ?? null;
  if (unit !== null && !isStr(unit)) p.add(`${path}.unit_of_measurement`, `not a string: ${show(unit)}`);
  if (sc !== null && !SENSOR_STATE_CLASSES.has(sc as string)) p.add(`${path}.state_class`, `not measurement/total/total_increasing: ${show(sc)}`);
  if ('last_reset_value_template' in c && sc !== 'total') p.add(`${path}.last_reset_value_template`, 'only with state class total (HA refuses it)');
  if ('options' in c) {
    if (!Array.isArray(c.options) || c.options.length === 0) p.add(`${path}.options`, 'not a non-empty list (HA refuses it)');
    if (dc !== 'enum') p.add(`${path}.options`, 'only with device class enum (HA refuses it)');
    if (unit !== null || sc !== null) p.add(`${path}.options`, 'not with a unit or a state class (HA refuses it)');
  }
  if (dc === undefined || dc === null) return;
  const rule = SENSOR_DEVICE_CLASSES[dc as string];
  if (!rule) return p.add(`${path}.device_class`, `not a sensor device class: ${show(dc)}`);
  const [units, stateClasses] = rule;
  if (units && !units.includes(unit as string | null)) {
    p.add(`${path}.unit_of_measurement`, `${show(unit)} is not a unit of device class ${dc as string} (HA refuses it since 2025.7; allowed: ${units.map(show).join(', ')})`);
  }
  if (sc !== null && !stateClasses.includes(sc as string)) {
    p.add(`${path}.state_class`, `${show(sc)} is impossible for device class ${dc as string} (HA's statistics refuse it; allowed: ${stateClasses.join(', ') || 'none'})`);
  }
}

function parsePayload(payload: unknown, p: Problems): Obj | null {
  let value = payload;
  if (isStr(payload)) {
    try {
      value = JSON.parse(payload);
    } catch {
      p.add('payload', 'not JSON');
      return null;
    }
  }
  if (!isObj(value)) {
    p.add('payload', 'not a JSON object');
    return null;
  }
  return value;
}

/** Every problem of one device discovery message (an empty list: HA takes it as meant). */
export function validateDeviceDiscovery(msg: DiscoveryMessage, prefix = 'homeassistant'): string[] {
  const p = new Problems();
  const levels = msg.topic.startsWith(`${prefix}/`) ? msg.topic.slice(prefix.length + 1).split('/') : [];
  const ids = levels.slice(1, -1);
  if (levels[0] !== 'device' || levels.at(-1) !== 'config' || ids.length < 1 || ids.length > 2 || !ids.every((id) => DISCOVERY_ID.test(id))) {
    p.add('topic', `not ${prefix}/device/[<node_id>/]<object_id>/config with ids of [a-zA-Z0-9_-]: ${msg.topic}`);
  }
  const raw = parsePayload(msg.payload, p);
  if (!raw) return p.list;
  const root = expand(raw, ABBREVIATIONS, 'root', p);
  for (const k of Object.keys(root)) if (!ROOT_KEYS.has(k)) p.add(`root.${k}`, 'not a device discovery option (HA refuses the whole payload)');
  checkDevice(root.device, p);
  checkOrigin(root.origin, p);
  checkTopic(root, 'state_topic', 'root', p);
  checkTopic(root, 'command_topic', 'root', p);
  if ('qos' in root && root.qos !== 0 && root.qos !== 1 && root.qos !== 2) p.add('root.qos', `not 0, 1 or 2: ${show(root.qos)}`);
  if ('encoding' in root && !isStr(root.encoding)) p.add('root.encoding', `not a string: ${show(root.encoding)}`);
  checkAvailability(root, 'root', p);
  if (!isObj(root.components)) {
    p.add('components', 'missing or not a mapping (required for device discovery)');
    return p.list;
  }
  const uniqueIds = new Map<string, string>();
  for (const [id, rawComponent] of Object.entries(root.components)) {
    const path = `components.${id}`;
    if (!isObj(rawComponent)) {
      p.add(path, 'not a mapping');
      continue;
    }
    const c = expand(rawComponent, ABBREVIATIONS, path, p);
    const platform = c.platform;
    if (!isStr(platform) || !SUPPORTED_COMPONENTS.has(platform)) {
      p.add(`${path}.platform`, `missing or not a platform HA knows: ${show(platform)}`);
      continue;
    }
    if (Object.keys(c).length === 1) continue; // a platform alone: the component's removal
    if (ENTITY_PLATFORMS.has(platform)) {
      if (!isStr(c.unique_id) || c.unique_id === '') p.add(`${path}.unique_id`, 'missing (required in device discovery)');
      else if (uniqueIds.has(c.unique_id)) p.add(`${path}.unique_id`, `${c.unique_id} is also ${uniqueIds.get(c.unique_id)!}'s`);
      else uniqueIds.set(c.unique_id, id);
    }
    for (const k of ['device', 'origin']) if (k in c) p.add(`${path}.${k}`, 'set at the root only (HA replaces it)');
    const merged: Obj = {};
    for (const k of SHARED_OPTIONS) if (k in root && !(k in c)) merged[k] = root[k];
    Object.assign(merged, c);
    delete merged.platform;
    delete merged.device;
    delete merged.origin;
    checkComponent(platform, replaceTopicBase(merged), path, p);
  }
  return p.list;
}

/** Problems across the discovery messages of several devices: topics, identifiers and unique ids shared. */
export function validateDiscoverySet(msgs: readonly DiscoveryMessage[]): string[] {
  const out: string[] = [];
  const seen = { topic: new Map<string, number>(), identifier: new Map<string, number>(), unique_id: new Map<string, number>() };
  const note = (kind: keyof typeof seen, key: string, i: number): void => {
    const first = seen[kind].get(key);
    if (first !== undefined && first !== i) out.push(`messages ${first} and ${i}: the same ${kind} ${key}`);
    else seen[kind].set(key, i);
  };
  msgs.forEach((m, i) => {
    note('topic', m.topic, i);
    const payload = isStr(m.payload) ? (JSON.parse(m.payload) as unknown) : m.payload;
    if (!isObj(payload)) return;
    const root = expand(payload, ABBREVIATIONS, 'root', new Problems());
    const device = isObj(root.device) ? expand(root.device, DEVICE_ABBREVIATIONS, 'device', new Problems()) : {};
    for (const id of [device.identifiers ?? []].flat()) note('identifier', String(id), i);
    for (const c of Object.values(isObj(root.components) ? root.components : {})) {
      if (!isObj(c)) continue;
      const e = expand(c, ABBREVIATIONS, '', new Problems());
      if (isStr(e.unique_id)) note('unique_id', `${String(e.platform)} ${e.unique_id}`, i);
    }
  });
  return out;
}

/** Every template of a payload, by path (components' `…_template` options and availability templates). */
export function templatesOf(payload: unknown): { path: string; template: string }[] {
  const out: { path: string; template: string }[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${path}[${i}]`));
    if (!isObj(v)) return;
    const e = expand(v, ABBREVIATIONS, path, new Problems());
    for (const [k, x] of Object.entries(e)) {
      if (k.endsWith('_template') && isStr(x)) out.push({ path: `${path}.${k}`, template: x });
      else walk(x, `${path}.${k}`);
    }
  };
  walk(isStr(payload) ? (JSON.parse(payload) as unknown) : payload, 'root');
  return out;
}
