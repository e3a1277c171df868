/** Bodies of the calls the dashboard makes (README "HTTP API v2" and docs/web-api.md). */
import type { BatteryReport, CapacitySample, DrainSample } from '../../src/core/drives/battery.js';
import type { ChargeJson, DriveJson, PlaceRef } from '../../src/core/drives/export.js';
import type { StatsPeriod, StatsRow } from '../../src/core/drives/stats.js';
import type { ChargeSample, DistanceUnits, PathPoint, Place, PlaceInput, TariffWindow } from '../../src/core/drives/types.js';
import type { RuleKind, RuleSettings } from '../../src/core/alerts/rules.js';
import type { QuietHours } from '../../src/core/alerts/delivery.js';

export interface SessionInfo {
  user: string;
  csrf: string;
  /** sliding session expiry, seconds */
  timeout: number;
  /** the session may use the operator's page (the Admin section) */
  admin?: boolean;
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
  /** `owner`: the user's own; `view` or `control`: shared with the user by `owner` */
  access?: 'owner' | 'control' | 'view';
  owner?: string;
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
  /** still sent by the server; the dashboard shows the drives (Drives tab) instead */
  trips?: Trip[];
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

/** The channels a notification is delivered by (src/core/push/channels.ts). */
export type PushChannel = 'apns' | 'fcm' | 'expo' | 'mail' | 'webhook' | 'ntfy';

/** The kinds of a user's own notification targets. */
export type TargetKind = 'webhook' | 'ntfy';

/** An app's `p` subscription (`GET /api/push/subscriptions`). */
export interface PushSubscriptionRow {
  vehicleId: string;
  appId: string;
  /** as the app sent it: `apns`, `gcm`, `fcm`, `expo`, `mail` */
  pushType: string;
  /** null: no channel delivers this push type (unknown type, a mail key without `@`…) */
  channel: PushChannel | null;
  keyType: string;
  /** the device token's first characters, or the mail address */
  key: string;
  lastUpdated: number;
  /** the last attempt's outcome ('' never tried) */
  lastResult: string;
  lastTime: number | null;
}

/** A user's webhook or ntfy target (`GET /api/push/targets`). */
export interface NotifyTargetRow {
  id: number;
  kind: TargetKind;
  /** with a user and password in it replaced by `***` */
  url: string;
  /** a webhook with an HMAC secret */
  signed: boolean;
  created: number;
  lastResult: string;
  lastTime: number | null;
}

/** A vehicle's ABRP link (`GET /api/abrp/<id>`): never the token. */
export interface AbrpLinkInfo {
  vehicleId: string;
  /** the operator set --abrp-api-key */
  configured: boolean;
  linked: boolean;
  state: 'pending' | 'ok' | 'failing' | 'refused' | null;
  since: number | null;
  lastSent: number | null;
  lastError: string | null;
  lastErrorTime: number | null;
  retryAt: number | null;
}

export type DeliveryState = 'pending' | 'receipt' | 'delivered' | 'failed' | 'skipped' | 'removed';

export interface DeliveryAttempt {
  time: number;
  /** the state the attempt left the delivery in */
  state: DeliveryState;
  detail: string;
}

export interface NotificationDelivery {
  id: number;
  channel: PushChannel;
  /** the subscription's app id ('' for a user target) */
  appId: string;
  /** the user target's id (0 for a subscription) */
  targetId: number;
  state: DeliveryState;
  /** oldest first */
  attempts: DeliveryAttempt[];
}

/** A notification with its deliveries (`GET /api/notifications/<id>`). */
export interface NotificationEntry {
  id: number;
  vehicleId: string;
  alertType: string;
  text: string;
  time: number;
  /** over the vehicle's rate limit: recorded, not delivered */
  limited: boolean;
  /** a rule's alert: the rule's kind, or `online`; null for the car's own notifications */
  event: string | null;
  /** a rule's alert: the rule's id; null for the car's own notifications */
  rule: number | null;
  /** until when the deliveries were held for the owner's quiet hours (epoch s); null: not held */
  heldUntil: number | null;
  deliveries: NotificationDelivery[];
}

// --- alerts the server computes (issue 30, docs/alerts.md): the core's own types, imported as
// types only ---

export type { QuietHours, RuleKind };

/** A rule's kind and settings: the body of `POST` and `PUT /api/alerts/<id>[/<ruleId>]`. */
export type AlertRuleInput = RuleSettings;

/** `GET /api/alerts/<id>`: one rule; `created` epoch s. */
export type AlertRuleRow = RuleSettings & { id: number; created: number };

/** `GET|PUT /api/alerts`: the owner's settings for all their vehicles. */
export interface AlertSettings {
  /** null: none (alerts are pushed at once) */
  quietHours: QuietHours | null;
}

// --- drives, charges, places, battery and stats (docs/web-api.md "Drives and charges"): the
// server's own types, imported as types only (nothing of the server goes into the bundle), so that
// the web typecheck fails when a shape changes on one side only ---

export type { BatteryReport, CapacitySample, ChargeSample, DistanceUnits, DrainSample, PathPoint, Place, PlaceInput, StatsPeriod, StatsRow, TariffWindow };

/** A session's end point: where it was, and the owner's place there (its name) when there is one. */
export type SessionPoint = PlaceRef;

/** `GET /api/drives/<id>`: one row; times epoch s, energy kWh, distance in `units`. */
export type Drive = DriveJson;

/** `GET /api/drives/<id>/<driveId>`. */
export interface DriveDetail extends Drive {
  path: PathPoint[];
}

/** `GET /api/charges/<id>`: one row. */
export type Charge = ChargeJson;

/** `GET /api/charges/<id>/<chargeId>`. */
export interface ChargeDetail extends Charge {
  samples: ChargeSample[];
}

/** `GET /api/integrations/<id>`: the embedded broker as the vehicle's owner uses it. */
export interface MqttIntegration {
  ports: { mqtt: number; mqtts: number | null; ws: number | null };
  username: string;
  topicPrefix: string;
  mirror: boolean;
  homeAssistant: { prefix: string; discoveryTopic: string } | null;
  online: boolean;
}

export interface IntegrationsInfo {
  /** null: the server runs no embedded broker */
  mqtt: MqttIntegration | null;
}
