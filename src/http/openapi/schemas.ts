/**
 * The component schemas of every body but the decoded records (record-schemas.ts): API v2 lists
 * with the reference's value types (counts and flags numbers, times and DB text strings,
 * `totalsize` a string: MySQL's DECIMAL `SUM()`), the command API, the web API (docs/web-api.md)
 * and the operations routes.
 */
import { EPOCH, exact, NULLABLE_EPOCH, ref, UTC_TIME } from './common.js';
import { DRIVE_SCHEMAS } from './drive-schemas.js';
import { ADMIN_SCHEMAS } from './admin-schemas.js';
import { ALERT_SCHEMAS } from './alert-schemas.js';
import { RECORD_SCHEMAS } from './record-schemas.js';
import type { Schema } from './types.js';

const COUNT: Schema = { type: 'integer', minimum: 0 };
const HEX64: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };

const list = (description: string, name: string): Schema => ({ type: 'array', description, items: ref(name) });

const CHANNEL: Schema = { type: 'string', enum: ['apns', 'fcm', 'expo', 'mail', 'webhook', 'ntfy'] };
const DELIVERY_STATE: Schema = { type: 'string', enum: ['pending', 'receipt', 'delivered', 'failed', 'skipped', 'removed'] };
const LINK: Schema = { enum: ['v2', 'mqtt', 'v2+mqtt', null], description: 'The vehicle\'s link; null when offline.' };
const POINT: Schema = { type: 'array', prefixItems: [EPOCH, { type: 'number' }], minItems: 2, maxItems: 2, description: '[epoch seconds, value]' };
const SERIES: Schema = { type: 'array', items: POINT };
const POSITION: Schema = {
  anyOf: [exact('A position.', { lat: { type: 'number' }, lon: { type: 'number' } }), { type: 'null' }],
};
const CHECK: Schema = {
  type: 'string',
  description:
    '`ok`, `off` (not configured: the cluster of a single node), `degraded: <why>` (the node serves, but without a part: ' +
    "the cluster's Redis is out of reach and the node serves its own connections alone) or `failed: <why>` (`failed: database is closed`).",
  examples: ['ok', 'off', 'degraded: not connected to the cluster (Redis): serving its own connections alone', 'failed: database is closed'],
};

export const SCHEMAS: Record<string, Schema> = {
  ...RECORD_SCHEMAS,
  ApiError: {
    type: 'object',
    description: 'An error of the command API, the web API and the operations routes (docs/web-api.md). Tools test `error`, not `message`.',
    properties: { error: { type: 'string', pattern: '^VTS_ERR_[A-Z0-9_]+$' }, message: { type: 'string' } },
    required: ['error'],
    additionalProperties: false,
  },
  // --- API v2 (docs/protocol/http-api-v2.md §4) ---
  VehicleRow: exact('One vehicle of `GET /api/vehicles`.', {
    id: { type: 'string' },
    v_apps_connected: { ...COUNT, description: 'MP apps plus API sessions registered with `GET /api/vehicle` and live streams.' },
    v_btcs_connected: { ...COUNT, description: 'MP batch clients.' },
    v_net_connected: { type: 'integer', enum: [0, 1], description: '1 when the car is connected.' },
  }),
  VehicleConnect: {
    type: 'object',
    description: 'The counts after registering; `m_msgtime_s`/`m_msgage_s` only when an `S` record is stored.',
    properties: {
      v_apps_connected: COUNT,
      v_btcs_connected: COUNT,
      v_first_peer: { type: 'integer', enum: [0, 1], description: '1 when this caller is the first app.' },
      v_net_connected: { type: 'integer', enum: [0, 1] },
      m_msgtime_s: UTC_TIME,
      m_msgage_s: { type: 'integer' },
    },
    required: ['v_apps_connected', 'v_btcs_connected', 'v_first_peer', 'v_net_connected'],
    dependentRequired: { m_msgtime_s: ['m_msgage_s'], m_msgage_s: ['m_msgtime_s'] },
    additionalProperties: false,
  },
  ProtocolRow: exact('One stored MP message (replay order: F, S, then the other codes).', {
    m_code: { type: 'string', minLength: 1, maxLength: 1 },
    m_msg: { type: 'string', description: 'The payload after the code (base64 ciphertext when paranoid).' },
    m_msgtime: UTC_TIME,
    m_paranoid: { type: 'integer', enum: [0, 1], description: 'A number, as the reference answers it (a MySQL integer column).' },
    m_ptoken: { type: 'string' },
  }),
  HistoricalSummaryRow: exact('One record type of the historical summary.', {
    h_recordtype: { type: 'string', examples: ['*-LOG-Trip'] },
    distinctrecs: { ...COUNT, description: 'Distinct record numbers.' },
    totalrecs: { ...COUNT, description: 'Records.' },
    totalsize: { type: 'string', pattern: '^\\d+$', description: 'Bytes, as a string (the reference\'s DECIMAL `SUM()`).' },
    first: UTC_TIME,
    last: UTC_TIME,
  }),
  HistoricalRecordRow: exact('One historical record (the type is not repeated).', {
    h_data: { type: 'string' },
    h_recordnumber: { type: 'integer' },
    h_timestamp: UTC_TIME,
  }),
  TokenRow: exact('One API token of `GET /api/token`: every value a string.', {
    application: { type: 'string' },
    created: UTC_TIME,
    lastused: UTC_TIME,
    owner: { type: 'string', description: 'The user name.' },
    permit: { type: 'string' },
    purpose: { type: 'string' },
    refreshed: UTC_TIME,
    token: { ...HEX64, description: "The token's SHA-256 (vts keeps only that): names it for `DELETE`, does not log in." },
  }),
  TokenCreated: exact('The new token, shown this once.', {
    application: { type: 'string' },
    owner: { type: 'string' },
    permit: { type: 'string' },
    purpose: { type: 'string' },
    token: { ...HEX64, description: 'The token: 64 hex digits.' },
  }),
  TokenDeleted: exact('The answer whether or not the token existed.', { owner: { type: 'string' }, token: { type: 'string', description: 'As given.' } }),
  // --- commands (README "Remote commands") ---
  CommandRequest: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, examples: ['stat'] },
      type: { type: 'string', enum: ['shell', 'js', 'mp'], description: 'Default `shell`; `mp`: `#<code>[,<params>][/<records>]`.' },
      timeout: { type: ['number', 'string'], description: 'Seconds (default `--command-timeout`, at most `--command-timeout-max`).' },
    },
    required: ['command'],
  },
  CommandResult: exact('What the vehicle answered.', {
    output: { type: 'string' },
    result: { type: 'integer', description: '0 ok, 1 failed, 2 unsupported, 3 unimplemented (the MP result).' },
  }),
  CommandList: exact('Slot n of the list at index n (features or parameters, 0–31).', {
    result: { type: 'integer' },
    values: { type: 'array', items: { type: 'string' }, maxItems: 32 },
  }),
  CommandJob: {
    type: 'object',
    description: 'An async job: `running`, then `done` with `output` and `result`, or `failed` with `error` and `message`.',
    properties: {
      job: { type: 'string', format: 'uuid' },
      status: { type: 'string', enum: ['running', 'done', 'failed'] },
      output: { type: 'string' },
      result: { type: 'integer' },
      error: { type: 'string', pattern: '^VTS_ERR_' },
      message: { type: 'string' },
    },
    required: ['job', 'status'],
    additionalProperties: false,
  },
  CommandAuditRow: exact('One audited command (PINs and passwords masked).', {
    caller: { type: 'string', examples: ['user:demo', 'vehicle:DEMO1', 'mp:42'] },
    command: { type: 'string' },
    duration_ms: COUNT,
    kind: { type: 'string', enum: ['shell', 'js', 'mp'] },
    result: { type: 'string', description: '`0`…`3` (the MP result) or `timeout`, `not-connected`, `queue-full`, `error`: a string.' },
    time: UTC_TIME,
    via: { type: 'string', examples: ['api', 'api-v2', 'custom-api', 'mp'] },
  }),
  CustomCommandJson: exact('`fn.format=json`.', {
    command: { type: 'string', description: '`fn.cmd` as given.' },
    output: { type: 'string' },
    result: { type: 'integer' },
    vehicleid: { type: 'string' },
  }),
  // --- web API (docs/web-api.md) ---
  WebSession: exact('The signed-in user and the session\'s CSRF token.', {
    admin: { type: 'boolean', description: "Whether the session may use the operator's page (the admin account, signed in with its password)." },
    user: { type: 'string' },
    csrf: { type: 'string', minLength: 1 },
    timeout: { ...COUNT, description: 'Seconds without use after which the web session ends (`--web-session-timeout`, 7 days by default).' },
  }),
  Credentials: {
    type: 'object',
    properties: {
      username: { type: 'string' },
      password: { type: 'string', description: 'The account password or an API token with the right `session`.' },
      code: { type: 'string', description: 'An account with TOTP: the six digits of the authenticator app, or one of its recovery codes (used up).' },
    },
    required: ['username', 'password'],
  },
  PasswordChange: {
    type: 'object',
    properties: { current: { type: 'string' }, new: { type: 'string', minLength: 8, maxLength: 1024 } },
    required: ['current', 'new'],
  },
  OverviewRow: exact('One vehicle of the caller (own or shared with it) with its state.', {
    id: { type: 'string' },
    name: { type: 'string' },
    online: { type: 'boolean' },
    link: LINK,
    apps: COUNT,
    batches: COUNT,
    lastUpdate: { ...NULLABLE_EPOCH, description: 'Epoch seconds of the last message; null when it never sent one.' },
    age: { ...NULLABLE_EPOCH, description: 'Seconds since then.' },
    soc: { type: ['number', 'null'] },
    range: { type: ['number', 'null'], description: 'Estimated range.' },
    idealRange: { type: ['number', 'null'] },
    units: { enum: ['K', 'M', null] },
    chargeState: { type: ['string', 'null'] },
    charging: { type: 'boolean' },
    access: { enum: ['owner', 'control', 'view'], description: "The caller's access: its own vehicle, or shared with it (docs/accounts.md \"Sharing\")." },
    owner: { type: 'string', description: "The owner's user name." },
  }),
  Trip: exact('A trip: plausible odometer growth (docs/web-api.md "Trips").', {
    start: EPOCH,
    end: EPOCH,
    distance: { type: 'number', minimum: 0, description: "In the vehicle's unit, to a tenth." },
    from: POSITION,
    to: POSITION,
    socStart: { type: ['number', 'null'] },
    socEnd: { type: ['number', 'null'] },
  }),
  History: exact('Chart series and trips of a period.', {
    from: EPOCH,
    to: EPOCH,
    units: { type: 'string', enum: ['K', 'M'] },
    series: exact('Each a list of [epoch seconds, value], oldest first.', {
      soc: SERIES,
      range: SERIES,
      idealRange: SERIES,
      power: SERIES,
      tempBattery: SERIES,
      tempAmbient: SERIES,
      tempMotor: SERIES,
      tempPem: SERIES,
      tempCabin: SERIES,
    }),
    trips: list('Trips of the period.', 'Trip'),
  }),
  Subscription: exact("An app's push subscription with its last delivery result.", {
    vehicleId: { type: 'string' },
    appId: { type: 'string' },
    pushType: { type: 'string', description: 'As the app sent it.' },
    channel: { anyOf: [CHANNEL, { type: 'null' }], description: 'The channel that delivers to it; null: none does.' },
    keyType: { type: 'string' },
    key: { type: 'string', description: 'A device token\'s first 8 characters and `…`; a mail address in full.' },
    lastUpdated: EPOCH,
    lastResult: { type: 'string', description: '`""`: never tried.' },
    lastTime: NULLABLE_EPOCH,
  }),
  Target: exact("A user's own target (the secret never shown, nor credentials in the URL).", {
    id: { type: 'integer', minimum: 1 },
    kind: { type: 'string', enum: ['webhook', 'ntfy'] },
    url: { type: 'string' },
    signed: { type: 'boolean' },
    created: EPOCH,
    lastResult: { type: 'string' },
    lastTime: NULLABLE_EPOCH,
  }),
  NewTarget: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['webhook', 'ntfy'] },
      url: { type: 'string', maxLength: 2048, description: '`http(s)://`, no fragment; ntfy: one topic.' },
      secret: { type: 'string', maxLength: 256, description: 'Webhooks only: the HMAC-SHA256 key of `X-Vts-Signature`.' },
    },
    required: ['kind', 'url'],
  },
  AbrpLink: exact("A vehicle's ABRP link (never its token); every field but `vehicleId`, `configured` and `linked` is null without a link.", {
    vehicleId: { type: 'string' },
    configured: { type: 'boolean', description: 'Whether the operator configured ABRP (`--abrp-api-key`): without it nothing is sent.' },
    linked: { type: 'boolean' },
    state: { enum: ['pending', 'ok', 'failing', 'refused', null], description: '`pending`: nothing sent yet; `ok`: the last send succeeded; `failing`: trying again at `retryAt`; `refused`: ABRP refused the token, nothing more is sent (link again).' },
    since: NULLABLE_EPOCH,
    lastSent: NULLABLE_EPOCH,
    lastError: { type: ['string', 'null'], description: 'Why the last send failed (kept after a later success).' },
    lastErrorTime: NULLABLE_EPOCH,
    retryAt: { ...NULLABLE_EPOCH, description: 'While `failing`: the next try.' },
  }),
  AbrpToken: {
    type: 'object',
    properties: { token: { type: 'string', minLength: 1, maxLength: 256, description: 'The ABRP user token (ABRP shows it when a generic live-data connection is set up for the car).' } },
    required: ['token'],
  },
  Attempt: exact('One attempt: the state it left the delivery in.', { time: EPOCH, state: DELIVERY_STATE, detail: { type: 'string' } }),
  Delivery: exact('To a subscription (`appId`, `targetId` 0) or a target (`targetId`, `appId` "").', {
    id: { type: 'integer' },
    channel: CHANNEL,
    appId: { type: 'string' },
    targetId: COUNT,
    state: DELIVERY_STATE,
    attempts: list('Oldest first.', 'Attempt'),
  }),
  Notification: exact('A notification of the vehicle with its deliveries.', {
    id: { type: 'integer' },
    vehicleId: { type: 'string' },
    alertType: { type: 'string' },
    text: { type: 'string' },
    time: EPOCH,
    limited: { type: 'boolean', description: 'Over the vehicle\'s rate limit: recorded without deliveries.' },
    event: { type: ['string', 'null'], description: "A rule's alert: its kind (`soc-reached`, …, or `online`); null for the car's own notifications." },
    rule: { type: ['integer', 'null'], description: "A rule's alert: the rule's id; null for the car's own notifications." },
    heldUntil: { type: ['integer', 'null'], description: "Until when the deliveries were held for the owner's quiet hours (epoch seconds); null: not held." },
    deliveries: list('Ordered by id.', 'Delivery'),
  }),
  ...DRIVE_SCHEMAS,
  ...ALERT_SCHEMAS,
  ...ADMIN_SCHEMAS,
  // --- the other routes ---
  WebConfig: exact("The dashboard's map settings.", { tileUrl: { type: 'string' }, tileAttribution: { type: 'string' } }),
  Health: exact('The process is up.', {
    status: { type: 'string', const: 'ok' },
    version: { type: 'string', examples: ['vts-0.1.0'] },
    uptimeSeconds: { type: 'integer', minimum: 0 },
  }),
  Ready: exact('Whether this node serves: its store, its cluster membership and its listeners.', {
    status: { type: 'string', enum: ['ready', 'degraded', 'not ready'], description: '`degraded` when a check is (still ready: HTTP 200).' },
    checks: exact('One value per check.', { store: CHECK, cluster: CHECK, listeners: CHECK }),
  }),
};
