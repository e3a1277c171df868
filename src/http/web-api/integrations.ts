/**
 * `GET /api/integrations/<VEHICLEID>` (docs/web-api.md "Integrations"): what the dashboard's
 * Integrations tab needs to connect Home Assistant and other MQTT tools to the vehicle: the
 * embedded broker's ports, the user name and the vehicle's topic prefix, whether v2 state is
 * mirrored as v3 metric topics, and the Home Assistant discovery topic (null when off). `mqtt` is
 * null without an embedded broker.
 */
import { discoveryTopic } from '../../core/ha/discovery.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { sendJson } from '../reply.js';
import { notYours } from './session.js';
import { notFound } from './sessions-common.js';

export const integrations: ApiRoute = {
  async handler(call) {
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    if (call.args.length > 1) return notFound(call, 'GET /api/integrations/<vehicle>');
    const info = call.ctx.mqttInfo();
    if (!info) return sendJson(call.reply, 200, { mqtt: null });
    return sendJson(call.reply, 200, {
      mqtt: {
        ports: { mqtt: info.ports.mqtt, mqtts: info.ports.mqtts, ws: info.ports.ws },
        // the caller logs in with its own account, also to a vehicle shared with it (its owner's prefix)
        username: call.principal.ownerName,
        topicPrefix: `ovms/${vehicle.ownerName}/${vehicle.id}/`,
        mirror: info.mirror,
        homeAssistant: info.haPrefix === null ? null : { prefix: info.haPrefix, discoveryTopic: discoveryTopic(info.haPrefix, vehicle.id) },
        online: call.ctx.hub.links.linkKind(vehicle.id) !== null,
      },
    });
  },
};
