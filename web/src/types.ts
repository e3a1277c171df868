/** Bodies of the calls the dashboard makes (README "HTTP API v2" and docs/web-api.md). */

export interface SessionInfo {
  user: string;
  csrf: string;
  /** sliding session expiry, seconds */
  timeout: number;
}

/** `v2`, `mqtt`, `v2+mqtt`, or null when the vehicle is offline. */
export type LinkKind = 'v2' | 'mqtt' | 'v2+mqtt' | null;

export interface OverviewRow {
  id: string;
  name: string;
  online: boolean;
  link: LinkKind;
  apps: number;
  batches: number;
  lastUpdate: number | null;
  age: number | null;
  soc: number | null;
  range: number | null;
  idealRange: number | null;
  units: string | null;
  chargeState: string | null;
  charging: boolean | null;
}

/**
 * An API v2 record body (`/api/status`, `/api/charge`, `/api/location`, `/api/tpms`): fields from
 * the car are strings (null when not sent), bit fields and ages numbers; `{}` without a record.
 */
export type V2Body = Record<string, string | number | null | undefined>;

export interface HistoricalRow {
  h_timestamp: string;
  h_recordnumber: string | number;
  h_data: string;
}

export type Point = [number, number];

export interface HistorySeries {
  soc?: Point[];
  range?: Point[];
  idealRange?: Point[];
  power?: Point[];
  tempBattery?: Point[];
  tempAmbient?: Point[];
  tempMotor?: Point[];
  tempPem?: Point[];
  tempCabin?: Point[];
}

export interface LatLon {
  lat: number;
  lon: number;
}

export interface Trip {
  start: number;
  end: number;
  distance: number | null;
  from: LatLon | null;
  to: LatLon | null;
  socStart: number | null;
  socEnd: number | null;
}

export interface HistoryBody {
  from: number;
  to: number;
  units: string | null;
  series: HistorySeries;
  trips: Trip[];
}

export type CommandType = 'shell' | 'js' | 'mp';

export interface CommandResult {
  output: string;
  /** 0 ok, 1 failed, 2 unsupported, 3 unimplemented */
  result: number;
}

export interface TokenRow {
  application: string;
  purpose: string;
  permit: string;
  created: string;
  lastused: string;
  /** the token's SHA-256: identifies it, cannot log in */
  token: string;
  owner?: string;
  refreshed?: string;
}

export interface NewToken {
  application: string;
  purpose: string;
  permit: string;
  owner: string;
  /** the token itself: shown once */
  token: string;
}

export interface WebConfig {
  tileUrl: string;
  tileAttribution: string;
}

/** Data of the live stream's events (`GET /api/live/<id>`). */
export interface LiveHello {
  vehicle: string;
  time: number | string;
}

export interface LiveLink {
  online: boolean;
  link: LinkKind;
  apps: number;
  batches: number;
}

export interface LiveRecord {
  code: string;
  data: string;
  time: number | string;
}

export interface LiveNotification {
  type: string;
  text: string;
  time: number | string;
}
