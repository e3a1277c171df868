/**
 * The OpenAPI description of an owner's own vehicles and their shares (docs/web-api.md "Own
 * vehicles" and "Sharing"; routes in own-vehicles.ts and shares.ts). The schemas are here, inline.
 */
import { apiOp, exact, json, jsonErrorResponse, NOT_YOURS, NULLABLE_EPOCH, EPOCH, path, vehicleParams } from '../openapi/common.js';
import type { Operation, Schema } from '../openapi/types.js';

const TAG = 'Own vehicles and sharing';
const RIGHTS = ['vehicle.admin', 'admin'] as const;
const err = jsonErrorResponse;

const ACCESS: Schema = { enum: ['owner', 'control', 'view'] };

const OWN_VEHICLE = exact('A vehicle of the caller, or one shared with it (never its car password).', {
  id: { type: 'string', description: 'Upper-cased.' },
  name: { type: 'string' },
  type: { enum: ['CAR', 'SERVER'] },
  access: { ...ACCESS, description: '`owner`: the caller\'s own; `control` or `view`: shared with the caller by `owner`.' },
  owner: { type: 'string', description: "The owner's user name." },
  online: { type: 'boolean' },
  lastUpdate: NULLABLE_EPOCH,
  created: EPOCH,
});

const NEW_VEHICLE: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,32}$', description: 'Stored upper-cased; unique on the server.' },
    password: { type: 'string', pattern: '^\\S{1,255}$', description: 'The car password: what the module is given (MP shared secret).' },
    name: { type: 'string', maxLength: 64 },
  },
  required: ['id', 'password'],
};

const VEHICLE_CHANGE: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 64 },
    password: { type: 'string', pattern: '^\\S{1,255}$', description: "A new car password: the module's next login needs it." },
  },
};

const CONFIRM: Schema = { type: 'object', properties: { confirm: { type: 'string', description: 'The vehicle id again.' } }, required: ['confirm'] };

const SHARE = exact('A user the vehicle is shared with.', {
  user: { type: 'string' },
  access: { enum: ['view', 'control'] },
  created: EPOCH,
});

const NEW_SHARE: Schema = {
  type: 'object',
  properties: { user: { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,60}$' }, access: { enum: ['view', 'control'] } },
  required: ['user', 'access'],
};

const OWNER_ONLY = {
  json: ['VTS_ERR_UNKNOWN_VEHICLE', 'VTS_ERR_FORBIDDEN'],
  why: `${NOT_YOURS.why}; the vehicle is shared with the caller, who is not its owner (\`VTS_ERR_FORBIDDEN\`)`,
};

const jsonBody = (description: string, schema: Schema) => ({ description, required: true, content: { 'application/json': { schema } } });

const ownVehicleParams = () => [path('vehicleId', 'A vehicle id of the caller (compared without regard to case).', { type: 'string', minLength: 1, maxLength: 32 })];

export const SHARE_DOCS = {
  addOwnVehicle: apiOp('post', {
    operationId: 'addOwnVehicle',
    summary: 'Add a vehicle of the caller (its id, car password and name)',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    requestBody: jsonBody('The vehicle.', NEW_VEHICLE),
    responses: {
      '201': json('Added.', OWN_VEHICLE),
      '400': err('A bad id, car password or name (the message names the field), or the account has 100 vehicles.', ['VTS_ERR_INVALID_INPUT']),
      '409': err('The id is taken (by anyone).', ['VTS_ERR_DUPLICATE_VEHICLE']),
    },
  }),
  listOwnVehicles: apiOp('get', {
    operationId: 'listOwnVehicles',
    summary: "The caller's vehicles, then those shared with it, each ordered by id",
    tag: TAG,
    style: 'json',
    responses: { '200': json('The vehicles.', { type: 'array', items: OWN_VEHICLE }) },
  }),
  changeOwnVehicle: apiOp('put', {
    operationId: 'changeOwnVehicle',
    summary: 'Rename the vehicle or change its car password (owner only)',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: ownVehicleParams(),
    forbidden: OWNER_ONLY,
    requestBody: jsonBody('What to change.', VEHICLE_CHANGE),
    responses: {
      '200': json('Changed.', OWN_VEHICLE),
      '400': err('Nothing to change, or a bad name or car password.', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
  removeOwnVehicle: apiOp('delete', {
    operationId: 'removeOwnVehicle',
    summary: 'Remove the vehicle with all its data (owner only; `confirm`: the vehicle id)',
    description: 'The confirmation is `{"confirm":"<VEHICLEID>"}` in a JSON body, or `?confirm=<VEHICLEID>`. Its shares go with it; their users\' connections are cut.',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: ownVehicleParams(),
    forbidden: OWNER_ONLY,
    requestBody: { description: 'The confirmation.', required: false, content: { 'application/json': { schema: CONFIRM } } },
    responses: {
      '204': { description: 'Removed.' },
      '400': err('No confirmation, or not the vehicle id.', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
  listShares: apiOp('get', {
    operationId: 'listShares',
    summary: "The vehicle's shares, ordered by user name (owner only)",
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: OWNER_ONLY,
    responses: { '200': json('The shares.', { type: 'array', items: SHARE }) },
  }),
  addShare: apiOp('post', {
    operationId: 'addShare',
    summary: 'Share the vehicle with a user, or change the access of its share (owner only)',
    description:
      '`view` reads state, history, drives and charges; `control` also sends commands. A changed access cuts the user\'s live connections of the vehicle (they connect again with the new access).',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(),
    forbidden: OWNER_ONLY,
    requestBody: jsonBody('The user and the access.', NEW_SHARE),
    responses: {
      '200': json('The access of an existing share changed.', SHARE),
      '201': json('Shared.', SHARE),
      '400': err('A bad user name or access, the caller itself, or 50 shares already.', ['VTS_ERR_INVALID_INPUT']),
      '404': err('No such user (or a disabled one: the answer does not tell).', ['VTS_ERR_UNKNOWN_USER']),
    },
  }),
  removeShare: apiOp('delete', {
    operationId: 'removeShare',
    summary: 'Revoke a share: at once, on every node (owner only)',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(path('user', 'The user name.')),
    forbidden: OWNER_ONLY,
    responses: { '204': { description: 'Revoked.' }, '404': err('The vehicle is not shared with that user.', ['VTS_ERR_NOT_FOUND']) },
  }),
} satisfies Record<string, Operation>;
