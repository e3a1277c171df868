/** The dashboard's client of own vehicles and sharing (docs/web-api.md "Own vehicles and sharing"). */
import { apiCall } from './api';

export type ShareAccess = 'view' | 'control';

export interface OwnVehicle {
  id: string;
  name: string;
  type: 'CAR' | 'SERVER';
  access: 'owner' | ShareAccess;
  owner: string;
  online: boolean;
  lastUpdate: number | null;
  created: number;
}

export interface ShareRow {
  user: string;
  access: ShareAccess;
  created: number;
}

const enc = encodeURIComponent;

export const ownVehicles = (): Promise<OwnVehicle[]> => apiCall('/api/account/vehicles');
export const addVehicle = (id: string, password: string, name: string): Promise<OwnVehicle> =>
  apiCall('/api/account/vehicles', { method: 'POST', json: { id, password, name } });
export const changeVehicle = (id: string, change: { name?: string; password?: string }): Promise<OwnVehicle> =>
  apiCall(`/api/account/vehicles/${enc(id)}`, { method: 'PUT', json: change });
export const removeVehicle = (id: string): Promise<void> => apiCall(`/api/account/vehicles/${enc(id)}`, { method: 'DELETE', json: { confirm: id } });
export const shares = (id: string): Promise<ShareRow[]> => apiCall(`/api/shares/${enc(id)}`);
export const share = (id: string, user: string, access: ShareAccess): Promise<ShareRow> =>
  apiCall(`/api/shares/${enc(id)}`, { method: 'POST', json: { user, access } });
export const revokeShare = (id: string, user: string): Promise<void> => apiCall(`/api/shares/${enc(id)}/${enc(user)}`, { method: 'DELETE' });
