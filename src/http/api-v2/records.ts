/**
 * The record endpoints (docs/protocol/http-api-v2.md §4.7–§4.11): `GET /api/protocol|status|charge|location|tpms/
 * <VEHICLEID>`. They read the last stored message of each code; none of them registers the caller
 * as an app. The bodies come from the pure decoders of core/records.
 */
import { chargeBody } from '../../core/records/charge.js';
import { PARANOID, type RecordResult, type StoredRecord } from '../../core/records/fields.js';
import { protocolRows } from '../../core/records/lists.js';
import { locationBody } from '../../core/records/location.js';
import { statusBody } from '../../core/records/status.js';
import { tpmsBody } from '../../core/records/tpms.js';
import type { CarMessage } from '../../store/store.js';
import { forbidden, paranoid, sendJson } from '../reply.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';

type Pick = (code: string) => StoredRecord | undefined;

/** A route that decodes the vehicle's stored messages into one JSON object (or a 502). */
function recordRoute(decode: (pick: Pick, now: number) => RecordResult): ApiRoute {
  return {
    async handler(call) {
      const { ctx, reply } = call;
      const vehicle = await ownVehicle(call);
      if (!vehicle) return forbidden(reply);
      const messages = await ctx.store.getCarMessages(vehicle.id);
      const pick: Pick = (code) => messages.find((m: CarMessage) => m.code === code);
      const body = decode(pick, ctx.hub.seconds());
      return body === PARANOID ? paranoid(reply) : sendJson(reply, 200, body);
    },
  };
}

export const status = recordRoute((pick, now) => statusBody(pick('S'), pick('D'), now));
export const charge = recordRoute((pick, now) => chargeBody(pick('S'), pick('D'), now));
export const location = recordRoute((pick, now) => locationBody(pick('L'), now));
export const tpms = recordRoute((pick, now) => tpmsBody(pick('Y'), pick('W'), now));

export const protocol: ApiRoute = {
  async handler(call) {
    const { ctx, reply } = call;
    const vehicle = await ownVehicle(call);
    if (!vehicle) return forbidden(reply);
    return sendJson(reply, 200, protocolRows(await ctx.store.getCarMessages(vehicle.id)));
  },
};
