/**
 * The table of remote commands through the command service (README "Remote commands"): the JSON
 * command API and the reference's former "Not Yet Implemented" vehicle calls, each with its
 * handler and options (json-api.ts, vehicle-actions.ts) and its OpenAPI description (openapi.ts).
 * Errors are `{"error","message"}`, but for the lock and valet state (the reference's text).
 */
import type { ApiGroup } from '../api-call.js';
import { commandInfo, runCommand } from './json-api.js';
import { COMMAND_DOCS as doc } from './openapi.js';
import * as actions from './vehicle-actions.js';

export const COMMAND_API: ApiGroup = {
  name: 'command_api',
  errors: 'json',
  rows: [
    { method: 'POST', path: '/api/command/{vehicleId}', route: runCommand, doc: doc.runCommand },
    { method: 'GET', path: '/api/command/{vehicleId}', route: commandInfo, doc: doc.commandAudit },
    { method: 'GET', path: '/api/command/{vehicleId}/{job}', route: commandInfo, doc: doc.commandJob },
    { method: 'PUT', path: '/api/charge/{vehicleId}', route: actions.chargeStart, doc: doc.chargeStart },
    { method: 'DELETE', path: '/api/charge/{vehicleId}', route: actions.chargeStop, doc: doc.chargeStop },
    { method: 'GET', path: '/api/lock/{vehicleId}', route: actions.lockState, errors: 'text', doc: doc.lockState },
    { method: 'PUT', path: '/api/lock/{vehicleId}', route: actions.lock, doc: doc.lock },
    { method: 'DELETE', path: '/api/lock/{vehicleId}', route: actions.unlock, doc: doc.unlock },
    { method: 'GET', path: '/api/valet/{vehicleId}', route: actions.lockState, errors: 'text', doc: doc.valetState },
    { method: 'PUT', path: '/api/valet/{vehicleId}', route: actions.valetOn, doc: doc.valetOn },
    { method: 'DELETE', path: '/api/valet/{vehicleId}', route: actions.valetOff, doc: doc.valetOff },
    { method: 'GET', path: '/api/features/{vehicleId}', route: actions.listFeatures, doc: doc.listFeatures },
    { method: 'PUT', path: '/api/features/{vehicleId}', route: actions.setFeature, doc: doc.setFeature },
    { method: 'GET', path: '/api/parameters/{vehicleId}', route: actions.listParameters, doc: doc.listParameters },
    { method: 'PUT', path: '/api/parameters/{vehicleId}', route: actions.setParameter, doc: doc.setParameter },
    { method: 'PUT', path: '/api/reset/{vehicleId}', route: actions.reset, doc: doc.reset },
    { method: 'PUT', path: '/api/homelink/{vehicleId}', route: actions.homelink, doc: doc.homelink },
  ],
};
