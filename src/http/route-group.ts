/**
 * The route group of a request, for the metrics (`vts_http_requests_total{group}`) and the access
 * log: a handful of names, never a vehicle id or a user name. The `/api` calls are grouped as the
 * dispatcher's table says (src/http/api-v2/routes.ts).
 */
import { API_ROUTES, COMMAND_API_ROUTES, WEB_API_ROUTES } from './api-hall.js';

export type RouteGroup = 'health' | 'metrics' | 'openapi' | 'mqapi' | 'api_v2' | 'command_api' | 'custom_api' | 'csv' | 'web_api' | 'web';

/** `url`: the request's path and query; `commandService`: the custom API's segment (`ovms`). */
export function routeGroup(method: string, url: string, commandService: string): RouteGroup {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (path === '/health' || path === '/ready') return 'health';
  if (path === '/metrics') return 'metrics';
  if (path.startsWith('/mqapi/')) return 'mqapi';
  if (path !== '/api' && !path.startsWith('/api/')) return 'web';
  const [fn = '', second] = path.slice(5).split('/', 2);
  if (fn === 'openapi.json' || fn === 'docs') return 'openapi';
  const route = API_ROUTES.get(`${method === 'HEAD' ? 'GET' : method}:${fn}`);
  if (route && COMMAND_API_ROUTES.has(route)) return 'command_api';
  if (route && WEB_API_ROUTES.has(route)) return 'web_api';
  if (fn === commandService) return second === 'csv' ? 'csv' : 'custom_api';
  if (fn === 'call') return 'custom_api';
  if (fn === 'historical' && q >= 0 && /(?:^|&)format=csv(?:&|$)/i.test(url.slice(q + 1))) return 'csv';
  return 'api_v2';
}
