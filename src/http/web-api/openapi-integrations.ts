/**
 * The OpenAPI description of the integrations calls of the web API (docs/web-api.md
 * "Integrations"): one operation per row of routes.ts.
 */
import { apiOp, exact, json, NOT_YOURS, vehicleParams } from '../openapi/common.js';
import type { Operation, Schema } from '../openapi/types.js';

const TAG = 'Integrations';

const PORT: Schema = { type: 'integer', minimum: 1, maximum: 65535 };
const MAYBE_PORT: Schema = { type: ['integer', 'null'], minimum: 1, maximum: 65535 };

const MQTT = exact('The embedded broker as seen by this vehicle\'s owner.', {
  ports: exact('Plain MQTT, MQTT over TLS and MQTT over WebSocket (null: off).', { mqtt: PORT, mqtts: MAYBE_PORT, ws: MAYBE_PORT }),
  username: { type: 'string', description: 'The MQTT user name: the owner\'s.' },
  topicPrefix: { type: 'string', description: 'The vehicle\'s topics, `ovms/<owner>/<vehicle>/`.', examples: ['ovms/demo/DEMO1/'] },
  mirror: { type: 'boolean', description: 'Whether a v2 car\'s state is published as v3 metric topics (`--mqtt-mirror`).' },
  homeAssistant: {
    oneOf: [
      { type: 'null' },
      exact('Home Assistant discovery (`--ha-discovery`).', {
        prefix: { type: 'string', examples: ['homeassistant'] },
        discoveryTopic: { type: 'string', examples: ['homeassistant/device/vts_DEMO1/config'] },
      }),
    ],
  },
  online: { type: 'boolean', description: 'Whether a module link of the vehicle is up now.' },
});

export const INTEGRATIONS_DOCS = {
  integrations: apiOp('get', {
    operationId: 'integrations',
    summary: 'How to connect Home Assistant and MQTT tools to the vehicle',
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '200': json('`mqtt` is null without an embedded broker.', exact('The integrations of the vehicle.', { mqtt: { oneOf: [{ type: 'null' }, MQTT] } })) },
  }),
} satisfies Record<string, Operation>;
