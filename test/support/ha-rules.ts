/**
 * Home Assistant's documented MQTT discovery facts, as tables (test/support/ha-schema.ts applies
 * them). Taken from Home Assistant's documentation (home-assistant.io/integrations/mqtt/ and the
 * platform pages sensor.mqtt, binary_sensor.mqtt, switch.mqtt, button.mqtt, device_tracker.mqtt)
 * and from the home-assistant/core sources those pages describe:
 *
 * - components/mqtt/schemas.py: DEVICE_DISCOVERY_SCHEMA (root keys, `device`/`origin`/`components`
 *   required, unknown root keys refused), SHARED_OPTIONS, the device and origin schemas,
 *   MQTT_ENTITY_COMMON_SCHEMA, the availability schemas, `unique_id` required per entity component;
 * - components/mqtt/util.py (valid_topic, valid_subscribe_topic, valid_publish_topic; a sensor's
 *   unit outside its device class's units refused from HA 2025.7);
 * - components/mqtt/config.py (MQTT_BASE/RO/RW_SCHEMA), sensor.py, binary_sensor.py, switch.py,
 *   button.py, device_tracker.py (each platform's DISCOVERY_SCHEMA, which drops unknown keys);
 * - components/mqtt/const.py (SUPPORTED_COMPONENTS, ENTITY_PLATFORMS), abbreviations.py;
 * - components/sensor/const.py (SensorDeviceClass, DEVICE_CLASS_UNITS, DEVICE_CLASS_STATE_CLASSES,
 *   with the unit enums of homeassistant/const.py), binary_sensor/__init__.py
 *   (BinarySensorDeviceClass; sensor and binary sensor entities refuse entity_category `config`).
 *
 * Facts only (names, lists), written here for vts's tests.
 */

/** `<prefix>/device/[<node_id>/]<object_id>/config`: each id one level of these characters. */
export const DISCOVERY_ID = /^[a-zA-Z0-9_-]+$/;

/** Platforms HA's MQTT discovery accepts (SUPPORTED_COMPONENTS). */
export const SUPPORTED_COMPONENTS = new Set([
  'alarm_control_panel', 'binary_sensor', 'button', 'camera', 'climate', 'cover', 'date', 'datetime',
  'device_automation', 'device_tracker', 'event', 'fan', 'humidifier', 'image', 'lawn_mower', 'light',
  'lock', 'notify', 'number', 'scene', 'siren', 'select', 'sensor', 'switch', 'tag', 'text', 'time',
  'update', 'vacuum', 'valve', 'water_heater',
]);
/** Those that are entities (every one but device_automation and tag): `unique_id` is required. */
export const ENTITY_PLATFORMS = new Set([...SUPPORTED_COMPONENTS].filter((p) => p !== 'device_automation' && p !== 'tag'));

/** Root keys of a device discovery payload (DEVICE_DISCOVERY_SCHEMA refuses any other). */
export const ROOT_KEYS = new Set([
  'device', 'origin', 'components', 'state_topic', 'command_topic', 'qos', 'encoding', 'message_expiry_interval',
  'availability', 'availability_mode', 'availability_template', 'availability_topic', 'payload_available', 'payload_not_available',
]);
/** Root options each component inherits unless it sets them itself (SHARED_OPTIONS). */
export const SHARED_OPTIONS = [
  'availability', 'availability_mode', 'availability_template', 'availability_topic', 'command_topic', 'encoding',
  'message_expiry_interval', 'payload_available', 'payload_not_available', 'state_topic', 'qos',
];
export const DEVICE_KEYS = new Set([
  'identifiers', 'connections', 'manufacturer', 'model', 'model_id', 'name', 'hw_version', 'serial_number',
  'sw_version', 'via_device', 'suggested_area', 'configuration_url',
]);
export const ORIGIN_KEYS = new Set(['name', 'sw_version', 'support_url']);
export const AVAILABILITY_ENTRY_KEYS = new Set(['topic', 'payload_available', 'payload_not_available', 'value_template']);
export const AVAILABILITY_MODES = new Set(['all', 'any', 'latest']);
export const ENTITY_CATEGORIES = new Set(['config', 'diagnostic']);

/** The entity options every MQTT entity platform takes (availability, MQTT_ENTITY_COMMON_SCHEMA, base). */
const COMMON = [
  'availability', 'availability_mode', 'availability_template', 'availability_topic', 'payload_available', 'payload_not_available',
  'device', 'origin', 'enabled_by_default', 'entity_category', 'entity_picture', 'icon', 'json_attributes_topic',
  'json_attributes_template', 'object_id', 'default_entity_id', 'unique_id', 'message_expiry_interval', 'qos', 'encoding', '~',
];

/** The options each platform's discovery schema knows (others are dropped); `required` must be there. */
export const PLATFORM_OPTIONS: Readonly<Record<string, { keys: ReadonlySet<string>; required: readonly string[] }>> = {
  sensor: {
    keys: new Set([...COMMON, 'state_topic', 'value_template', 'device_class', 'expire_after', 'force_update', 'last_reset_value_template', 'name', 'options', 'suggested_display_precision', 'state_class', 'unit_of_measurement']),
    required: ['state_topic'],
  },
  binary_sensor: {
    keys: new Set([...COMMON, 'state_topic', 'value_template', 'device_class', 'expire_after', 'force_update', 'name', 'off_delay', 'payload_off', 'payload_on']),
    required: ['state_topic'],
  },
  switch: {
    keys: new Set([...COMMON, 'command_topic', 'optimistic', 'retain', 'state_topic', 'command_template', 'name', 'payload_off', 'payload_on', 'state_off', 'state_on', 'value_template', 'device_class']),
    required: ['command_topic'],
  },
  button: {
    keys: new Set([...COMMON, 'command_template', 'command_topic', 'device_class', 'name', 'payload_press', 'retain']),
    required: ['command_topic'],
  },
  device_tracker: {
    keys: new Set([...COMMON, 'state_topic', 'value_template', 'name', 'payload_home', 'payload_not_home', 'payload_reset', 'source_type']),
    required: [],
  },
};

export const SENSOR_STATE_CLASSES = new Set(['measurement', 'total', 'total_increasing']);
const ALL_STATE_CLASSES = [...SENSOR_STATE_CLASSES];
const M = ['measurement'];
const TOTALS = ['total', 'total_increasing'];

// unit enums of homeassistant/const.py
const LENGTH = ['mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'mi', 'nmi'];
const ENERGY = ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'];
const POWER = ['mW', 'W', 'kW', 'MW', 'GW', 'TW', 'BTU/h'];
const VOLTAGE = ['µV', 'μV', 'mV', 'V', 'kV', 'MV'];
const TEMPERATURE = ['°C', '°F', 'K'];
const TIME = ['d', 'h', 'min', 's', 'ms'];
const UG_M3 = ['µg/m³', 'μg/m³'];
const PRESSURE = ['Pa', 'hPa', 'kPa', 'bar', 'cbar', 'mbar', 'mmHg', 'inHg', 'psi'];
const SPEED = ['ft/s', 'in/d', 'in/h', 'in/s', 'km/h', 'kn', 'm/s', 'mph', 'mm/d', 'mm/s', 'mm/h', 'Beaufort'];
const VOLUME = ['L', 'mL', 'gal', 'fl. oz.', 'm³', 'ft³', 'CCF'];

/**
 * SensorDeviceClass → [units allowed (null: none), state classes allowed]. A class whose unit list
 * is `undefined` has no unit rule (DEVICE_CLASS_UNITS does not list it: monetary takes any ISO 4217 code).
 */
export const SENSOR_DEVICE_CLASSES: Readonly<Record<string, readonly [readonly (string | null)[] | undefined, readonly string[]]>> = {
  date: [[null], []],
  enum: [[null], []],
  timestamp: [[null], []],
  apparent_power: [['mVA', 'VA', 'kVA'], M],
  aqi: [[null], M],
  area: [['m²', 'cm²', 'km²', 'mm²', 'in²', 'ft²', 'yd²', 'mi²', 'ac', 'ha'], ALL_STATE_CLASSES],
  atmospheric_pressure: [PRESSURE, M],
  battery: [['%'], M],
  blood_glucose_concentration: [['mg/dL', 'mmol/L'], M],
  carbon_monoxide: [['ppm'], M],
  carbon_dioxide: [['ppm'], M],
  conductivity: [['S/cm', 'mS/cm', 'µS/cm', 'μS/cm'], M],
  current: [['mA', 'A'], M],
  data_rate: [['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s', 'B/s', 'kB/s', 'MB/s', 'GB/s', 'KiB/s', 'MiB/s', 'GiB/s'], M],
  data_size: [['bit', 'kbit', 'Mbit', 'Gbit', 'B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'], ALL_STATE_CLASSES],
  distance: [LENGTH, ALL_STATE_CLASSES],
  duration: [TIME, ALL_STATE_CLASSES],
  energy: [ENERGY, TOTALS],
  energy_distance: [['kWh/100km', 'Wh/km', 'mi/kWh', 'km/kWh'], M],
  energy_storage: [ENERGY, M],
  frequency: [['Hz', 'kHz', 'MHz', 'GHz'], M],
  gas: [['CCF', 'ft³', 'm³'], TOTALS],
  humidity: [['%'], M],
  illuminance: [['lx'], M],
  irradiance: [['W/m²', 'BTU/(h⋅ft²)'], M],
  moisture: [['%'], M],
  monetary: [undefined, ['total']],
  nitrogen_dioxide: [UG_M3, M],
  nitrogen_monoxide: [UG_M3, M],
  nitrous_oxide: [UG_M3, M],
  ozone: [UG_M3, M],
  ph: [[null], M],
  pm1: [UG_M3, M],
  pm10: [UG_M3, M],
  pm25: [UG_M3, M],
  power_factor: [['%', null], M],
  power: [POWER, M],
  precipitation: [['cm', 'in', 'mm'], ALL_STATE_CLASSES],
  precipitation_intensity: [['in/d', 'in/h', 'mm/d', 'mm/h'], M],
  pressure: [PRESSURE, M],
  reactive_power: [['mvar', 'var', 'kvar'], M],
  signal_strength: [['dB', 'dBm'], M],
  sound_pressure: [['dB', 'dBA'], M],
  speed: [SPEED, M],
  sulphur_dioxide: [UG_M3, M],
  temperature: [TEMPERATURE, M],
  temperature_delta: [TEMPERATURE, M],
  volatile_organic_compounds: [UG_M3, M],
  volatile_organic_compounds_parts: [['ppm', 'ppb'], M],
  voltage: [VOLTAGE, M],
  volume: [VOLUME, TOTALS],
  volume_flow_rate: [['m³/h', 'm³/min', 'm³/s', 'ft³/min', 'L/h', 'L/min', 'L/s', 'gal/min', 'mL/s'], M],
  volume_storage: [VOLUME, M],
  water: [['CCF', 'ft³', 'm³', 'gal', 'L'], TOTALS],
  weight: [['µg', 'μg', 'mg', 'g', 'kg', 'oz', 'lb', 'st'], ALL_STATE_CLASSES],
  wind_direction: [['°'], []],
  wind_speed: [['Beaufort', 'ft/s', 'km/h', 'kn', 'm/s', 'mph'], M],
};

/** BinarySensorDeviceClass ("on" means: see HA's binary sensor docs, e.g. lock: on = unlocked). */
export const BINARY_SENSOR_DEVICE_CLASSES = new Set([
  'battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat',
  'light', 'lock', 'moisture', 'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem',
  'running', 'safety', 'smoke', 'sound', 'tamper', 'update', 'vibration', 'window',
]);
export const SWITCH_DEVICE_CLASSES = new Set(['outlet', 'switch']);
export const BUTTON_DEVICE_CLASSES = new Set(['identify', 'restart', 'update']);
export const SOURCE_TYPES = new Set(['gps', 'router', 'bluetooth', 'bluetooth_le']);

/** abbreviations.py: root and component keys (those of the platforms above). */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  dev: 'device', o: 'origin', cmps: 'components', p: 'platform', avty: 'availability', avty_mode: 'availability_mode',
  avty_t: 'availability_topic', avty_tpl: 'availability_template', pl_avail: 'payload_available',
  pl_not_avail: 'payload_not_available', stat_t: 'state_topic', cmd_t: 'command_topic', cmd_tpl: 'command_template',
  e: 'encoding', en: 'enabled_by_default', ent_cat: 'entity_category', ent_pic: 'entity_picture', ic: 'icon',
  json_attr_t: 'json_attributes_topic', json_attr_tpl: 'json_attributes_template', obj_id: 'object_id',
  def_ent_id: 'default_entity_id', uniq_id: 'unique_id', val_tpl: 'value_template', dev_cla: 'device_class',
  unit_of_meas: 'unit_of_measurement', stat_cla: 'state_class', sug_dsp_prc: 'suggested_display_precision',
  exp_aft: 'expire_after', frc_upd: 'force_update', lrst_val_tpl: 'last_reset_value_template', ops: 'options',
  off_dly: 'off_delay', pl_on: 'payload_on', pl_off: 'payload_off', stat_on: 'state_on', stat_off: 'state_off',
  opt: 'optimistic', ret: 'retain', pl_prs: 'payload_press', pl_home: 'payload_home', pl_not_home: 'payload_not_home',
  pl_rst: 'payload_reset', src_type: 'source_type', t: 'topic',
};
export const DEVICE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  cns: 'connections', cu: 'configuration_url', hw: 'hw_version', ids: 'identifiers', mdl: 'model', mdl_id: 'model_id',
  mf: 'manufacturer', sa: 'suggested_area', sn: 'serial_number', sw: 'sw_version', via_device: 'via_device',
};
export const ORIGIN_ABBREVIATIONS: Readonly<Record<string, string>> = { sw: 'sw_version', url: 'support_url' };
