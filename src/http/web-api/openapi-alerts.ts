/** The OpenAPI description of the alert calls (docs/web-api.md "Alerts"; routes in alerts.ts; schemas in ../openapi/alert-schemas.ts). */
import { apiOp, json, jsonErrorResponse, NOT_YOURS, path, ref, vehicleParams } from '../openapi/common.js';
import type { Operation } from '../openapi/types.js';

const TAG = 'Alerts';
const RIGHTS = ['push.admin', 'admin'] as const;
const err = jsonErrorResponse;
const ruleId = path('id', "The rule's id.", { type: 'string', pattern: '^[0-9]{1,12}$' });
const BAD_RULE = err(
  'A bad setting: the message starts with the field (`kind`, `threshold`, `after`, `place`): a threshold outside its range, an unknown place or another owner\'s, …',
  ['VTS_ERR_INVALID_INPUT'],
);
export const ALERT_DOCS = {
  readAlertSettings: apiOp('get', {
    operationId: 'readAlertSettings',
    summary: "The caller's alert settings: the quiet hours",
    tag: TAG,
    style: 'json',
    responses: { '200': json('The settings (`quietHours` null: none).', ref('AlertSettings')) },
  }),
  setAlertSettings: apiOp('put', {
    operationId: 'setAlertSettings',
    summary: 'Set the quiet hours (null: none)',
    description: "In the quiet hours every notification of the caller's vehicles is recorded at once and pushed when they end; the car's own alarms (`A` alerts) are not held.",
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    requestBody: { description: 'The settings.', required: true, content: { 'application/json': { schema: ref('AlertSettings') } } },
    responses: {
      '200': json('Set: the settings.', ref('AlertSettings')),
      '400': err('A bad setting: the message starts with the field (`quietHours`, `from`, `to`, `timezone`).', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
  listAlerts: apiOp('get', {
    operationId: 'listAlerts',
    summary: "The vehicle's alert rules, ordered by id",
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '200': json('The rules.', { type: 'array', items: ref('AlertRule') }) },
  }),
  addAlert: apiOp('post', {
    operationId: 'addAlert',
    summary: 'Add an alert rule to the vehicle',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    requestBody: { description: 'The rule.', required: true, content: { 'application/json': { schema: ref('AlertRuleInput') } } },
    responses: { '201': json('Added: the rule with its id.', ref('AlertRule')), '400': BAD_RULE },
  }),
  changeAlert: apiOp('put', {
    operationId: 'changeAlert',
    summary: 'Change an alert rule (the whole rule; a changed rule starts afresh)',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(ruleId),
    forbidden: NOT_YOURS,
    requestBody: { description: 'The rule.', required: true, content: { 'application/json': { schema: ref('AlertRuleInput') } } },
    responses: { '200': json('Changed: the rule.', ref('AlertRule')), '400': BAD_RULE, '404': err('The vehicle has no such rule.', ['VTS_ERR_NOT_FOUND']) },
  }),
  removeAlert: apiOp('delete', {
    operationId: 'removeAlert',
    summary: 'Remove an alert rule',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(ruleId),
    forbidden: NOT_YOURS,
    responses: { '204': { description: 'Removed.' }, '404': err('The vehicle has no such rule.', ['VTS_ERR_NOT_FOUND']) },
  }),
} satisfies Record<string, Operation>;
