/**
 * The parts of a `vts import` (the reference's tables, in import order), the names `--only`
 * takes for them, and what `--on-conflict` may say.
 */
import { VtsError } from '../errors.js';
import type { ReferenceTable } from './reference-db.js';

/** Owners first: everything else refers to them. */
export const PARTS = ['owners', 'vehicles', 'messages', 'history', 'subscriptions', 'tokens', 'autoprovision'] as const;
export type Part = (typeof PARTS)[number];

/** Where each part comes from at the source: its table and the key it is read in order of. */
export const PART_SOURCES: Record<Part, { table: ReferenceTable; key: readonly string[] }> = {
  owners: { table: 'ovms_owners', key: ['owner'] },
  vehicles: { table: 'ovms_cars', key: ['owner', 'vehicleid'] },
  messages: { table: 'ovms_carmessages', key: ['owner', 'vehicleid', 'm_code'] },
  history: { table: 'ovms_historicalmessages', key: ['owner', 'vehicleid', 'h_recordtype', 'h_recordnumber', 'h_timestamp'] },
  subscriptions: { table: 'ovms_notifies', key: ['owner', 'vehicleid', 'appid'] },
  tokens: { table: 'ovms_apitokens', key: ['owner', 'token'] },
  autoprovision: { table: 'ovms_autoprovision', key: ['ap_key'] },
};

/** Other names `--only` takes: the reference's table names, with or without `ovms_`. */
const ALIASES: Record<string, Part> = {
  users: 'owners',
  cars: 'vehicles',
  carmessages: 'messages',
  historicalmessages: 'history',
  historical: 'history',
  notifies: 'subscriptions',
  apitokens: 'tokens',
};

/** `--only owners,vehicles`: the parts, in import order. */
export function parseParts(list: string): Part[] {
  const wanted = new Set<Part>();
  for (const raw of list.split(',')) {
    const name = raw.trim().toLowerCase().replace(/^ovms_/, '');
    if (name === '') continue;
    const part = (PARTS as readonly string[]).includes(name) ? (name as Part) : ALIASES[name];
    if (!part) throw new VtsError('VTS_ERR_INVALID_INPUT', `--only: no part ${JSON.stringify(raw.trim())} (${PARTS.join(', ')})`);
    wanted.add(part);
  }
  if (wanted.size === 0) throw new VtsError('VTS_ERR_INVALID_INPUT', `--only: name one or more of ${PARTS.join(', ')}`);
  return PARTS.filter((p) => wanted.has(p));
}

export const ON_CONFLICT = ['skip', 'replace'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];
