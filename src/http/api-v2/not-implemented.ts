/**
 * The reference's "Not Yet Implemented" group (http-api-v2.md §4.13): answered 501 after
 * authentication, with no ownership check, until remote command execution implements them.
 */
import { notImplemented } from '../reply.js';
import type { ApiRoute } from './call.js';

export const notYetImplemented: ApiRoute = {
  handler: ({ reply }) => notImplemented(reply),
};

export const NOT_IMPLEMENTED_ROUTES = [
  'PUT:charge',
  'DELETE:charge',
  'GET:lock',
  'PUT:lock',
  'DELETE:lock',
  'GET:valet',
  'PUT:valet',
  'DELETE:valet',
  'GET:features',
  'PUT:features',
  'GET:parameters',
  'PUT:parameters',
  'PUT:reset',
  'PUT:homelink',
] as const;
