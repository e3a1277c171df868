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
import { RecordMemo, type Rendered } from './record-memo.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';

/** The last stored message of each code, in the order of `codes` (undefined: none stored). */
function pickRecords(messages: readonly CarMessage[], codes: readonly string[]): (StoredRecord | undefined)[] {
  return codes.map((code) => messages.find((m) => m.code === code));
}

/** The rendered answer of a record route for one vehicle: its JSON bytes, or PARANOID (the 502). */
export interface RecordRenderer {
  (ctx: HttpContext, vehicleId: string): Promise<Rendered>;
  /** The same answer at once, when the store has the vehicle's messages in memory (else undefined). */
  atOnce(ctx: HttpContext, vehicleId: string): Rendered | undefined;
}

/**
 * A renderer that decodes the vehicle's last stored messages of `codes` into one JSON object (or
 * PARANOID). The rendered answer is remembered per vehicle and server (record-memo.ts): a poll in
 * the same second of the same records answers the same bytes without decoding them again.
 */
function recordRenderer(codes: readonly string[], decode: (records: readonly (StoredRecord | undefined)[], now: number) => RecordResult): RecordRenderer {
  const memos = new WeakMap<HttpContext, RecordMemo>();
  const render = (ctx: HttpContext, vehicleId: string, messages: readonly CarMessage[]): Rendered => {
    const records = pickRecords(messages, codes);
    const now = ctx.hub.seconds();
    let memo = memos.get(ctx);
    if (!memo) memos.set(ctx, (memo = new RecordMemo()));
    const rendered = memo.get(vehicleId, records, now);
    if (rendered !== undefined) return rendered;
    const body = decode(records, now);
    return memo.set(vehicleId, records, now, body === PARANOID ? PARANOID : Buffer.from(canonicalJson(body)));
  };
  const renderer = async (ctx: HttpContext, vehicleId: string): Promise<Rendered> => render(ctx, vehicleId, await ctx.store.getCarMessages(vehicleId));
  return Object.assign(renderer, {
    atOnce(ctx: HttpContext, vehicleId: string): Rendered | undefined {
      const messages = ctx.store.peekCarMessages(vehicleId);
      return messages && render(ctx, vehicleId, messages);
    },
  });
}

/** The route of a renderer: 403 unless the caller owns the vehicle, then its answer. */
function recordRoute(render: RecordRenderer): ApiRoute {
  return {
    async handler(call) {
      const { ctx, reply } = call;
      const vehicle = await ownVehicle(call, 'view');
      if (!vehicle) return forbidden(reply);
      const rendered = await render(ctx, vehicle.id);
      // REF's bare JSON type: fastify adds no charset to a Buffer (the bytes are those of sendJson)
      return rendered === PARANOID ? paranoid(reply) : withStatus(reply, 200).header('content-type', 'application/json').send(rendered);
    },
  };
}

/** `/api/status`'s renderer, also used by the answer before fastify (src/http/fast-status.ts). */
export const renderStatus = recordRenderer(['S', 'D'], ([s, d], now) => statusBody(s, d, now));

export const status = recordRoute(renderStatus);
export const charge = recordRoute(recordRenderer(['S', 'D'], ([s, d], now) => chargeBody(s, d, now)));
export const location = recordRoute(recordRenderer(['L'], ([l], now) => locationBody(l, now)));
export const tpms = recordRoute(recordRenderer(['Y', 'W'], ([y, w], now) => tpmsBody(y, w, now)));

export const protocol: ApiRoute = {
  async handler(call) {
    const { ctx, reply } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return forbidden(reply);
    return sendJson(reply, 200, protocolRows(await ctx.store.getCarMessages(vehicle.id)));
  },
};
