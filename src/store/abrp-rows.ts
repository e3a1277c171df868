/** The abrp_links rows of both databases as AbrpLink values (src/store/abrp-store.ts). */
import { ABRP_LINK_STATES, type AbrpLink, type AbrpLinkState } from './abrp-store.js';

export interface AbrpLinkRow {
  vehicle_id: string;
  owner_id: number;
  token: string;
  state: string;
  created: number;
  last_sent: number | null;
  last_tlm: string;
  last_error: string;
  last_error_time: number | null;
  failures: number;
  retry_at: number | null;
}

export const ABRP_COLUMNS = 'vehicle_id, owner_id, token, state, created, last_sent, last_tlm, last_error, last_error_time, failures, retry_at';

export function toAbrpLink(r: AbrpLinkRow): AbrpLink {
  return {
    vehicleId: r.vehicle_id,
    ownerId: Number(r.owner_id),
    token: r.token,
    state: (ABRP_LINK_STATES as readonly string[]).includes(r.state) ? (r.state as AbrpLinkState) : 'failing',
    created: Number(r.created),
    lastSent: r.last_sent === null ? null : Number(r.last_sent),
    lastTlm: r.last_tlm,
    lastError: r.last_error,
    lastErrorTime: r.last_error_time === null ? null : Number(r.last_error_time),
    failures: Number(r.failures),
    retryAt: r.retry_at === null ? null : Number(r.retry_at),
  };
}
