/** The OpenAPI description of the operator's calls (docs/web-api.md "Admin"; routes in admin.ts and admin-lists.ts; schemas in ../openapi/admin-schemas.ts). */
import { apiOp, json, jsonErrorResponse, path, query, ref } from '../openapi/common.js';
import type { Operation } from '../openapi/types.js';

const TAG = 'Admin';
const err = jsonErrorResponse;
const FORBIDDEN = { json: ['VTS_ERR_FORBIDDEN'], why: 'the caller is not the admin account itself (no admin right, or an API token) (`VTS_ERR_FORBIDDEN`)' };
const name = path('name', 'The user name (any case).');
const PAGE = [
  query('q', 'A part of the name (users: or mail address; vehicles: id or owner), any case; at most 100 characters.', { type: 'string', maxLength: 100 }),
  query('limit', 'Rows per page (1–200, 50 by default).', { type: 'integer', minimum: 1, maximum: 200 }),
  query('offset', 'Rows to skip.', { type: 'integer', minimum: 0 }),
];
const BAD_PAGE = err('A bad `q`, `limit` or `offset` (the message names it).', ['VTS_ERR_INVALID_INPUT']);
const UNKNOWN = err('No such user.', ['VTS_ERR_UNKNOWN_USER']);
const action = (id: string, summary: string, description: string) =>
  apiOp('post', {
    operationId: id,
    summary,
    description,
    tag: TAG,
    style: 'json',
    parameters: [name],
    forbidden: FORBIDDEN,
    responses: { '204': { description: 'Done.' }, '404': UNKNOWN },
  });

export const ADMIN_DOCS = {
  listUsers: apiOp('get', {
    operationId: 'adminListUsers',
    summary: 'The users: search and pages',
    tag: TAG,
    style: 'json',
    parameters: PAGE,
    forbidden: FORBIDDEN,
    responses: { '200': json('A page of users.', ref('AdminUsers')), '400': BAD_PAGE },
  }),
  disableUser: apiOp('post', {
    operationId: 'adminDisableUser',
    summary: 'Disable a user: no login of any kind; its sessions and live connections end at once',
    tag: TAG,
    style: 'json',
    parameters: [name],
    forbidden: FORBIDDEN,
    responses: { '204': { description: 'Disabled.' }, '400': err('The operator\'s own account.', ['VTS_ERR_INVALID_INPUT']), '404': UNKNOWN },
  }),
  enableUser: action('adminEnableUser', 'Enable a disabled user', 'The user may log in again.'),
  verifyUser: action('adminVerifyUser', "Mark a user's mail address as verified", 'For an owner whose mail did not arrive.'),
  resetPassword: apiOp('post', {
    operationId: 'adminResetPassword',
    summary: "Set a new random password, shown once; the user's sessions and live connections end",
    tag: TAG,
    style: 'json',
    parameters: [name],
    forbidden: FORBIDDEN,
    responses: { '200': json('The new password (shown this once: it is stored hashed).', ref('PasswordReset')), '404': UNKNOWN },
  }),
  removeUser: apiOp('delete', {
    operationId: 'adminRemoveUser',
    summary: 'Remove a user (with its vehicles and their data only with `?vehicles=remove`)',
    tag: TAG,
    style: 'json',
    parameters: [name, query('vehicles', '`remove`: the vehicles the user owns go too, with all their data.', { type: 'string', enum: ['remove'] })],
    forbidden: FORBIDDEN,
    responses: {
      '200': json('Removed.', ref('RemovedUser')),
      '400': err("The operator's own account, or a bad `vehicles`.", ['VTS_ERR_INVALID_INPUT']),
      '404': UNKNOWN,
      '409': err('The user owns vehicles (and `vehicles=remove` was not given).', ['VTS_ERR_USER_HAS_VEHICLES']),
    },
  }),
  listVehicles: apiOp('get', {
    operationId: 'adminListVehicles',
    summary: 'The vehicles with owner, link, online state, last message and traffic: search and pages',
    tag: TAG,
    style: 'json',
    parameters: PAGE,
    forbidden: FORBIDDEN,
    responses: { '200': json('A page of vehicles.', ref('AdminVehicles')), '400': BAD_PAGE },
  }),
  server: apiOp('get', {
    operationId: 'adminServer',
    summary: "The server's figures: connections by kind, ingest rate, push outbox, cluster nodes",
    tag: TAG,
    style: 'json',
    forbidden: FORBIDDEN,
    responses: { '200': json('The figures.', ref('AdminServer')) },
  }),
  audit: apiOp('get', {
    operationId: 'adminAudit',
    summary: 'The audit log of account actions, newest first',
    tag: TAG,
    style: 'json',
    parameters: [
      query('before', 'Entries before this id (the `next` of the page before).', { type: 'integer', minimum: 0 }),
      query('limit', 'Entries per page (1–200, 50 by default).', { type: 'integer', minimum: 1, maximum: 200 }),
      query('action', 'An action (`user.disable`) or its family (`user`).', { type: 'string', maxLength: 100 }),
      query('actor', 'Done by this user.', { type: 'string', maxLength: 100 }),
      query('target', 'Done to this user or vehicle.', { type: 'string', maxLength: 100 }),
    ],
    forbidden: FORBIDDEN,
    responses: { '200': json('A page of entries.', ref('AuditPage')), '400': err('A bad `before`, `limit`, `action`, `actor` or `target`.', ['VTS_ERR_INVALID_INPUT']) },
  }),
} satisfies Record<string, Operation>;
