/**
 * The route group of a request, for the metrics (`vts_http_requests_total{group}`) and the access
 * log: a handful of names, never a vehicle id or a user name. The `/api` calls are grouped as the
 * groups' tables say (src/http/api-hall.ts `API_GROUPS`).
 */
import { apiCallGroup } from './api-hall.js';

export type RouteGroup = 'health' | 'metrics' | 'openapi' | 'mqapi' | 'api_v2' | 'command_api' | 'custom_api' | 'csv' | 'web_api' | 'web';

/** `url`: the request's path and query; `commandService`: the custom API's segment (`ovms`). */
export function routeGroup(method: string, url: string, commandService: string): RouteGroup {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path === '/health' || path === '/ready') return 'health';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/mqapi/')) return 'mqapi';
  if (path !== '/api' && !path.startsWith('/api/')) return 'web';
  const segments = path.slice(5).split('/');
  const [fn = '', second] = segments;
  if (fn === 'openapi.json' || fn === 'docs') return 'openapi';
  const group = apiCallGroup(method, segments);
  if (group === 'command_api' || group === 'web_api') return group;
  if (fn === commandService) return second === 'csv' ? 'csv' : 'custom_api';
  if (fn === 'call') return 'custom_api';
  if (fn === 'historical' && q >= 0 && /(?:^|&)format=csv(?:&|$)/i.test(url.slice(q + 1))) return 'csv';
  return 'api_v2';
}
