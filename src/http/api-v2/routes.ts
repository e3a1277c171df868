/**
 * The table of the reference's API v2 (docs/protocol/http-api-v2.md §4): each call's method and path, its
 * handler with its options (in this folder) and its OpenAPI description (openapi.ts). Errors are
 * one line of text.
 */
import type { ApiGroup } from '../api-call.js';
import { historical } from './historical.js';
import { API_V2_DOCS as doc } from './openapi.js';
import { charge, location, protocol, status, tpms } from './records.js';
import { login, logout } from './session.js';
import { createToken, deleteToken, listTokens } from './tokens.js';
import { connectVehicle, disconnectVehicle, listVehicles } from './vehicles.js';

export const API_V2: ApiGroup = {
  name: 'api_v2',
  errors: 'text',
  rows: [
    { method: 'GET', path: '/api/cookie', route: login, doc: doc.login },
    { method: 'DELETE', path: '/api/cookie', route: logout, doc: doc.logout },
    { method: 'GET', path: '/api/token', route: listTokens, doc: doc.listTokens },
    { method: 'POST', path: '/api/token', route: createToken, doc: doc.createToken },
    { method: 'DELETE', path: '/api/token', route: deleteToken, doc: doc.deleteTokenMissing },
    { method: 'DELETE', path: '/api/token/{token}', route: deleteToken, doc: doc.deleteToken },
    { method: 'GET', path: '/api/vehicles', route: listVehicles, doc: doc.listVehicles },
    { method: 'GET', path: '/api/vehicle/{vehicleId}', route: connectVehicle, doc: doc.connectVehicle },
    { method: 'DELETE', path: '/api/vehicle/{vehicleId}', route: disconnectVehicle, doc: doc.disconnectVehicle },
    { method: 'GET', path: '/api/protocol/{vehicleId}', route: protocol, doc: doc.protocol },
    { method: 'GET', path: '/api/status/{vehicleId}', route: status, doc: doc.status },
    { method: 'GET', path: '/api/charge/{vehicleId}', route: charge, doc: doc.charge },
    { method: 'GET', path: '/api/location/{vehicleId}', route: location, doc: doc.location },
    { method: 'GET', path: '/api/tpms/{vehicleId}', route: tpms, doc: doc.tpms },
    { method: 'GET', path: '/api/historical/{vehicleId}', route: historical, doc: doc.historicalSummary },
    { method: 'GET', path: '/api/historical/{vehicleId}/{recordType}', route: historical, doc: doc.historicalRecords },
  ],
};
