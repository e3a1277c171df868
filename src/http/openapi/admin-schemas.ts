/** The schemas of the operator's calls (docs/web-api.md "Admin"; src/http/web-api/openapi-admin.ts). */
import { EPOCH, NULLABLE_EPOCH, exact } from './common.js';
import type { Schema } from './types.js';

const COUNT: Schema = { type: 'integer', minimum: 0 };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const paged = (description: string, key: string, item: string): Schema =>
  exact(description, { total: { ...COUNT, description: 'Rows the search found in all.' }, limit: COUNT, offset: COUNT, [key]: { type: 'array', items: ref(item) } });

const CONNECTIONS = exact('The connections a node holds now, by kind.', {
  cars: { ...COUNT, description: 'v2 cars over MP.' },
  apps: { ...COUNT, description: 'MP apps.' },
  batch: { ...COUNT, description: 'MP batch clients.' },
  mqttModules: { ...COUNT, description: 'v3 vehicles linked over MQTT.' },
  mqttClients: { ...COUNT, description: 'Clients of the embedded MQTT broker (modules and apps).' },
  apiSessions: { ...COUNT, description: 'HTTP API sessions registered on vehicles.' },
  liveStreams: { ...COUNT, description: "The dashboard's open live streams." },
});

export const ADMIN_SCHEMAS: Record<string, Schema> = {
  AdminUser: exact('A user as the operator sees it.', {
    name: { type: 'string' },
    email: { type: ['string', 'null'] },
    verified: { type: 'boolean' },
    disabled: { type: 'boolean' },
    admin: { type: 'boolean' },
    totpEnabled: { type: 'boolean' },
    created: EPOCH,
    vehicles: COUNT,
    lastSignIn: { ...NULLABLE_EPOCH, description: 'The last dashboard sign-in the audit log holds (null: none).' },
  }),
  AdminUsers: paged('A page of users, ordered by name.', 'users', 'AdminUser'),
  AdminVehicle: exact('A vehicle as the operator sees it.', {
    id: { type: 'string' },
    name: { type: 'string' },
    owner: { type: 'string' },
    type: { type: 'string', enum: ['CAR', 'SERVER'] },
    link: { type: ['string', 'null'], enum: ['v2', 'mqtt', 'v2+mqtt', null], description: 'How the vehicle is connected now, on any node (null: offline).' },
    online: { type: 'boolean' },
    lastSeen: { ...NULLABLE_EPOCH, description: 'The last stored car message (null: never).' },
    trafficToday: { ...COUNT, description: 'Bytes to and from the car and its clients today (UTC).' },
    traffic30Days: { ...COUNT, description: 'Bytes over the last 30 days (today included).' },
  }),
  AdminVehicles: paged('A page of vehicles, ordered by id.', 'vehicles', 'AdminVehicle'),
  AdminNode: exact("A node's figures.", {
    node: { type: 'string' },
    connections: CONNECTIONS,
    messagesPerSecond: { type: 'number', minimum: 0, description: 'Car messages received per second over the last ten seconds.' },
    time: EPOCH,
  }),
  AdminServer: exact("The server's figures.", {
    version: { type: 'string' },
    uptime: { ...COUNT, description: 'Seconds since this node started.' },
    self: ref('AdminNode'),
    outbox: { type: 'object', additionalProperties: COUNT, description: 'Push deliveries not done yet, by channel.' },
    cluster: exact('The cluster.', {
      clustered: { type: 'boolean' },
      health: { type: 'string', description: '`ok`, `off` (a single node), `degraded: …` (as `/ready`).' },
      nodes: { type: 'array', items: ref('AdminNode'), description: 'Every node heard from in the last 15 seconds, this one first.' },
    }),
  }),
  AuditEntry: exact('An entry of the audit log.', {
    id: { ...COUNT, description: 'Grows with every entry.' },
    time: EPOCH,
    action: { type: 'string', examples: ['user.disable'] },
    actor: { type: 'string', description: 'The user who did it; `cli:<system user>` for the command line; empty for a failed sign-in.' },
    via: { type: 'string', enum: ['web', 'api', 'cli', 'mp', 'mqtt', 'system'] },
    target: { type: 'string', description: 'The user or vehicle it was done to.' },
    detail: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
  }),
  AuditPage: exact('A page of the audit log, newest first.', {
    entries: { type: 'array', items: ref('AuditEntry') },
    next: { type: ['integer', 'null'], description: 'The `before` of the next page (null: this was the last).' },
  }),
  PasswordReset: exact('The new password, shown once.', { user: { type: 'string' }, password: { type: 'string', minLength: 20 } }),
  RemovedUser: exact('Removed: the user and the vehicles that went with it.', { user: { type: 'string' }, vehicles: { type: 'array', items: { type: 'string' } } }),
};
