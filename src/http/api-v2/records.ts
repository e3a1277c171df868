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
import { canonicalJson } from '../../core/records/json.js';
import type { CarMessage } from '../../store/store.js';
import type { HttpContext } from '../context.js';
import { forbidden, paranoid, sendJson, status as withStatus } from '../reply.js';
import { RecordMemo } from './record-memo.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';

/** The last stored message of each code, in the order of `codes` (undefined: none stored). */
function pickRecords(messages: readonly CarMessage[], codes: readonly string[]): (StoredRecord | undefined)[] {
  return codes.map((code) => messages.find((m) => m.code === code));
}

/**
 * A route that decodes the vehicle's last stored messages of `codes` into one JSON object (or a
 * 502). The rendered answer is remembered per vehicle and server (record-memo.ts): a poll in the
 * same second of the same records answers the same bytes without decoding them again.
 */
function recordRoute(codes: readonly string[], decode: (records: readonly (StoredRecord | undefined)[], now: number) => RecordResult): ApiRoute {
  const memos = new WeakMap<HttpContext, RecordMemo>();
  return {
    async handler(call) {
      const { ctx, reply } = call;
      const vehicle = await ownVehicle(call);
      if (!vehicle) return forbidden(reply);
      const records = pickRecords(await ctx.store.getCarMessages(vehicle.id), codes);
      const now = ctx.hub.seconds();
      let memo = memos.get(ctx);
      if (!memo) memos.set(ctx, (memo = new RecordMemo()));
      let rendered = memo.get(vehicle.id, records, now);
      if (rendered === undefined) {
        const body = decode(records, now);
        rendered = memo.set(vehicle.id, records, now, body === PARANOID ? PARANOID : Buffer.from(canonicalJson(body)));
      }
      // REF's bare JSON type: fastify adds no charset to a Buffer (the bytes are those of sendJson)
      return rendered === PARANOID ? paranoid(reply) : withStatus(reply, 200).header('content-type', 'application/json').send(rendered);
    },
  };
}

export const status = recordRoute(['S', 'D'], ([s, d], now) => statusBody(s, d, now));
export const charge = recordRoute(['S', 'D'], ([s, d], now) => chargeBody(s, d, now));
export const location = recordRoute(['L'], ([l], now) => locationBody(l, now));
export const tpms = recordRoute(['Y', 'W'], ([y, w], now) => tpmsBody(y, w, now));

export const protocol: ApiRoute = {
  async handler(call) {
    const { ctx, reply } = call;
    const vehicle = await ownVehicle(call);
    if (!vehicle) return forbidden(reply);
    return sendJson(reply, 200, protocolRows(await ctx.store.getCarMessages(vehicle.id)));
  },
};
