/**
 * `GET /api/integrations/<VEHICLEID>`: the embedded broker's ports, the owner's user name, the
 * vehicle's topic prefix, the mirror and the Home Assistant discovery topic, as documented; null
 * without an embedded broker; another owner's vehicle refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import { httpHarness } from '../http/helpers.js';
import { asOther, assertStatusError, body, otherOwner } from '../http/web-api/sessions-helpers.js';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const doc = buildOpenApiDocument() as unknown as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }> };
const validate = ajv.compile(doc.paths['/api/integrations/{vehicleId}']!.get.responses['200']!.content['application/json']!.schema);

test('the Integrations answer: broker ports, user, topics, mirror and discovery, as documented', async (t) => {
  const h = await httpHarness(t, { mqtt: { port: 0, tlsPort: null, wsPort: null, haDiscoveryPrefix: 'ha' } });
  const r = await h.asDemo('/api/integrations/DEMO1');
  assert.equal(r.status, 200, r.body);
  const b = body<Record<string, unknown>>(r);
  assert.ok(validate(b), JSON.stringify(validate.errors));
  assert.deepEqual(b, {
    mqtt: {
      ports: { mqtt: h.t.server.ports.mqtt, mqtts: null, ws: null },
      username: 'demo',
      topicPrefix: 'ovms/demo/DEMO1/',
      mirror: true,
      homeAssistant: { prefix: 'ha', discoveryTopic: 'ha/device/vts_DEMO1/config' },
      online: false,
    },
  });
  await otherOwner(h);
  assertStatusError(await asOther(h, '/api/integrations/DEMO1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
});

test('without an embedded broker `mqtt` is null; with discovery and the mirror off they say so', async (t) => {
  const none = await httpHarness(t, { mqtt: { port: null, tlsPort: null, wsPort: null } });
  const r = await none.asDemo('/api/integrations/DEMO1');
  assert.equal(r.status, 200, r.body);
  assert.deepEqual(body(r), { mqtt: null });
  assert.ok(validate(body(r)));
  const off = await httpHarness(t, { mqtt: { port: 0, tlsPort: null, wsPort: null, haDiscoveryPrefix: null, mirror: false } });
  const b = body<{ mqtt: { mirror: boolean; homeAssistant: unknown } }>(await off.asDemo('/api/integrations/DEMO1'));
  assert.equal(b.mqtt.mirror, false);
  assert.equal(b.mqtt.homeAssistant, null);
});
