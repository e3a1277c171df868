/** The dashboard's client of the operator's calls (docs/web-api.md "Admin"). */
import { request } from './api';
import type { LinkKind } from './types';

export interface AdminUser {
  name: string;
  email: string | null;
  verified: boolean;
  disabled: boolean;
  admin: boolean;
  totpEnabled: boolean;
  created: number;
  vehicles: number;
  lastSignIn: number | null;
}

export interface AdminVehicle {
  id: string;
  name: string;
  owner: string;
  type: string;
  link: LinkKind;
  online: boolean;
  lastSeen: number | null;
  trafficToday: number;
  traffic30Days: number;
}

export interface NodeFigures {
  node: string;
  connections: { cars: number; apps: number; batch: number; mqttModules: number; mqttClients: number; apiSessions: number; liveStreams: number };
  messagesPerSecond: number;
  time: number;
}

export interface ServerFigures {
  version: string;
  uptime: number;
  self: NodeFigures;
  outbox: Record<string, number>;
  cluster: { clustered: boolean; health: string; nodes: NodeFigures[] };
}

export interface AuditEntry {
  id: number;
  time: number;
  action: string;
  actor: string;
  via: string;
  target: string;
  detail: Record<string, string | number | boolean | null>;
}

export interface PageOf<T> {
  total: number;
  limit: number;
  offset: number;
  rows: T[];
}

const enc = encodeURIComponent;
const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
};

export async function adminUsers(search: string, offset: number, limit: number): Promise<PageOf<AdminUser>> {
  const r = await request<{ total: number; limit: number; offset: number; users: AdminUser[] }>(`/api/admin/users${query({ q: search, offset, limit })}`);
  return { total: r.total, limit: r.limit, offset: r.offset, rows: r.users };
}

export async function adminVehicles(search: string, offset: number, limit: number): Promise<PageOf<AdminVehicle>> {
  const r = await request<{ total: number; limit: number; offset: number; vehicles: AdminVehicle[] }>(`/api/admin/vehicles${query({ q: search, offset, limit })}`);
  return { total: r.total, limit: r.limit, offset: r.offset, rows: r.vehicles };
}

export type UserAction = 'disable' | 'enable' | 'verify';

export const userAction = (name: string, action: UserAction): Promise<void> => request<void>(`/api/admin/users/${enc(name)}/${action}`, 'POST');

export const resetPassword = (name: string): Promise<{ user: string; password: string }> => request(`/api/admin/users/${enc(name)}/reset-password`, 'POST');

export const removeUser = (name: string, withVehicles: boolean): Promise<{ user: string; vehicles: string[] }> =>
  request(`/api/admin/users/${enc(name)}${withVehicles ? '?vehicles=remove' : ''}`, 'DELETE');

export const serverFigures = (): Promise<ServerFigures> => request('/api/admin/server');

export const auditLog = (filter: { action?: string; actor?: string; target?: string; before?: number }, limit = 50): Promise<{ entries: AuditEntry[]; next: number | null }> =>
  request(`/api/admin/audit${query({ ...filter, limit })}`);
