/**
 * The component schemas of drives, charges, places, battery and stats (docs/web-api.md "Drives and
 * charges", "Places", "Battery", "Stats"): times epoch seconds, energy kWh, power kW, distance and
 * speed in the vehicle's unit (`units`), SOC and SOH in %.
 */
import { EPOCH, exact, NULLABLE_EPOCH, ref } from './common.js';
import type { Schema } from './types.js';

const NUMBER: Schema = { type: 'number' };
const MAYBE: Schema = { type: ['number', 'null'] };
const ID: Schema = { type: 'integer', minimum: 1 };
const HHMM: Schema = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', examples: ['22:00'] };
const PRICE: Schema = { type: 'number', minimum: 0 };

const PLACE_REF: Schema = {
  anyOf: [
    exact('A position and the name of the place it is in (null: in none of the owner\'s places).', { lat: NUMBER, lon: NUMBER, place: { type: ['string', 'null'] } }),
    { type: 'null' },
  ],
};

const DRIVE: Record<string, Schema> = {
  id: ID,
  start: EPOCH,
  end: { ...NULLABLE_EPOCH, description: 'null while the drive goes on.' },
  duration: { type: 'integer', minimum: 0, description: 'Seconds (so far, for a drive that goes on).' },
  units: { type: 'string', enum: ['K', 'M'], description: 'The distance unit: K km, M miles.' },
  distance: MAYBE,
  startOdometer: MAYBE,
  endOdometer: MAYBE,
  socStart: MAYBE,
  socEnd: MAYBE,
  energyUsed: { ...MAYBE, description: 'kWh.' },
  energyRecovered: { ...MAYBE, description: 'kWh.' },
  efficiency: { ...MAYBE, description: 'Wh per distance unit: the energy used, else the SOC used × the estimated capacity.' },
  maxSpeed: MAYBE,
  from: PLACE_REF,
  to: PLACE_REF,
  source: { type: 'string', enum: ['live', 'log'], description: 'The live data, or the firmware\'s trip log.' },
};

const CHARGE: Record<string, Schema> = {
  id: ID,
  start: EPOCH,
  end: { ...NULLABLE_EPOCH, description: 'null while the charge goes on.' },
  duration: { type: 'integer', minimum: 0 },
  socStart: MAYBE,
  socEnd: MAYBE,
  energyAdded: { ...MAYBE, description: 'kWh into the battery.' },
  energyFromGrid: { ...MAYBE, description: 'kWh from the grid (null when the car does not tell).' },
  maxPower: { ...MAYBE, description: 'kW.' },
  kind: { enum: ['ac', 'dc', null] },
  at: PLACE_REF,
  cost: { ...MAYBE, description: 'In `currency`, by the place\'s tariff; null outside every place.' },
  currency: { type: ['string', 'null'] },
  source: { type: 'string', enum: ['live', 'log', 'inferred'], description: 'The live data, the firmware\'s grid log, or a SOC gain across a gap.' },
};

const PLACE: Record<string, Schema> = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  lat: { type: 'number', minimum: -90, maximum: 90 },
  lon: { type: 'number', minimum: -180, maximum: 180 },
  radius: { type: 'number', minimum: 10, maximum: 5000, description: 'Metres.' },
  timezone: { type: 'string', description: 'IANA time zone of the time-of-use windows (default UTC).', examples: ['Europe/Berlin'] },
  currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 (default EUR).' },
  pricePerKwh: PRICE,
  pricePerMinute: PRICE,
  sessionFee: PRICE,
  timeOfUse: {
    type: 'array',
    description: 'Windows with their own price per kWh; a window whose `to` comes before its `from` spans midnight.',
    maxItems: 24,
    items: ref('TariffWindow'),
  },
};

export const DRIVE_SCHEMAS: Record<string, Schema> = {
  Drive: exact('A drive (docs/web-api.md "Drives and charges").', DRIVE),
  PathPoint: exact('A point of a drive\'s route.', { t: EPOCH, lat: NUMBER, lon: NUMBER, speed: MAYBE, soc: MAYBE }),
  DriveDetail: exact('A drive with its route.', { ...DRIVE, path: { type: 'array', items: ref('PathPoint'), description: 'Oldest first.' } }),
  Charge: exact('A charge (docs/web-api.md "Drives and charges").', CHARGE),
  ChargeSample: exact('A moment of a charge: SOC, power (kW), kWh into the battery and from the grid so far.', {
    t: EPOCH,
    soc: MAYBE,
    power: MAYBE,
    energy: MAYBE,
    grid: MAYBE,
  }),
  ChargeDetail: exact('A charge with its samples.', { ...CHARGE, samples: { type: 'array', items: ref('ChargeSample'), description: 'Oldest first.' } }),
  TariffWindow: exact('A time-of-use window in the place\'s time zone.', { from: HHMM, to: HHMM, pricePerKwh: PRICE }),
  Place: exact('One of the caller\'s places.', { id: ID, ...PLACE }),
  NewPlace: {
    type: 'object',
    description: 'A place as its owner sends it (JSON); `timezone`, `currency`, the prices and `timeOfUse` may be left out.',
    properties: PLACE,
    required: ['name', 'lat', 'lon', 'radius'],
  },
  Battery: exact('The battery\'s health from every session of the vehicle.', {
    capacity: exact('kWh; `degradation` in % of `max`.', { estimate: MAYBE, max: MAYBE, degradation: MAYBE }),
    samples: {
      type: 'array',
      description: 'One estimate per charge that added 10 SOC points or more, oldest first.',
      items: exact('A capacity estimate.', { t: EPOCH, capacity: NUMBER, socGain: NUMBER, energy: NUMBER }),
    },
    soh: { type: 'array', description: 'The car\'s own SOH, [epoch seconds, %].', items: { type: 'array', prefixItems: [EPOCH, NUMBER], minItems: 2, maxItems: 2 } },
    vampireDrain: exact('SOC lost while parked between sessions.', {
      perDay: { ...MAYBE, description: 'SOC points per day.' },
      samples: { type: 'array', items: exact('A parked span.', { start: EPOCH, end: EPOCH, socLost: NUMBER, perDay: NUMBER }) },
    }),
  }),
  StatsRow: exact('One period.', {
    start: { ...EPOCH, description: 'The period\'s start in the requested time zone.' },
    distance: { type: 'number', minimum: 0 },
    drives: { type: 'integer', minimum: 0 },
    energyUsed: MAYBE,
    charges: { type: 'integer', minimum: 0 },
    energyAdded: MAYBE,
    energyFromGrid: MAYBE,
    cost: MAYBE,
    currency: { type: ['string', 'null'] },
    efficiency: { ...MAYBE, description: 'Wh per distance unit.' },
    vampireDrain: { ...MAYBE, description: 'SOC points lost per parked day.' },
  }),
};
