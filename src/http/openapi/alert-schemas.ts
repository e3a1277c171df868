/** The schemas of the alert calls (docs/web-api.md "Alerts"; src/http/web-api/openapi-alerts.ts). */
import { EPOCH, exact } from './common.js';
import type { Schema } from './types.js';

const KINDS = ['soc-reached', 'soc-below', 'charge-started', 'charge-done', 'charge-stopped', 'offline', 'place-arrive', 'place-leave', 'v12-low', 'drive-report'];
const QUIET: Schema = {
  anyOf: [
    exact('Quiet hours on the wall clock of `timezone`; `to` at or before `from` spans midnight; `from` equal to `to`: none.', {
      from: { type: 'string', pattern: '^\\d{2}:\\d{2}$', examples: ['22:00'] },
      to: { type: 'string', pattern: '^\\d{2}:\\d{2}$', examples: ['07:00'] },
      timezone: { type: 'string', examples: ['Europe/Berlin'] },
    }),
    { type: 'null' },
  ],
};

export const ALERT_SCHEMAS: Record<string, Schema> = {
  AlertRuleInput: {
    type: 'object',
    description: 'A rule: its kind and that kind\'s settings (docs/alerts.md). Keys a kind does not use are ignored.',
    properties: {
      kind: { type: 'string', enum: KINDS },
      threshold: { type: 'number', description: 'soc-reached, soc-below: SOC in % (0–100); v12-low: volts (above 0, at most 30).' },
      after: { type: 'integer', minimum: 1, maximum: 2592000, description: 'Seconds: charge-stopped (default 120), offline (default 3600), v12-low (default 600).' },
      place: { type: 'integer', description: "place-arrive, place-leave: the id of one of the caller's places." },
    },
    required: ['kind'],
  },
  AlertRule: {
    type: 'object',
    description: 'A rule in this key order: `id`, `kind`, the kind\'s settings (`threshold`, `after`, `place`), `created`.',
    properties: {
      id: { type: 'integer' },
      kind: { type: 'string', enum: KINDS },
      threshold: { type: 'number' },
      after: { type: 'integer' },
      place: { type: 'integer' },
      created: EPOCH,
    },
    required: ['id', 'kind', 'created'],
    additionalProperties: false,
  },
  AlertSettings: exact("The caller's alert settings, for all their vehicles.", { quietHours: QUIET }),
};
