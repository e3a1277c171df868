/**
 * The reference's "Not Yet Implemented" group (docs/protocol/http-api-v2.md §4.13), implemented on the command
 * service with the MP commands of docs/protocol/messages.md §5. Each needs the right `command`,
 * `admin` or `*` and the vehicle's ownership; parameters come from the query or a form body.
 *
 * | Call | MP | Parameters |
 * | --- | --- | --- |
 * | PUT /api/charge/<id> | 11 start; or 10 mode, 15 current, 16 both (set, not started) | `mode` standard/storage/range/performance, `current` A |
 * | DELETE /api/charge/<id> | 12 stop | |
 * | GET /api/lock/<id>, GET /api/valet/<id> | (stored D record) | |
 * | PUT /api/lock/<id>, DELETE /api/lock/<id> | 20 lock, 22 unlock | `pin` |
 * | PUT /api/valet/<id>, DELETE /api/valet/<id> | 21 on, 23 off | `pin` |
 * | PUT /api/homelink/<id> | 24 | `button` 1–3 |
 * | PUT /api/reset/<id> | 5 (no answer: the module reboots) | |
 * | GET /api/features/<id>, PUT … | 1 list, 2 set | `feature` 0–31, `value` |
 * | GET /api/parameters/<id>, PUT … | 3 list, 4 set | `parameter` 0–31, `value` |
 *
 * Answers JSON: commands `{"output","result"}` (result 0 ok, 1 failed, 2 unsupported, 3
 * unimplemented); lists `{"result","values":[…]}` (slot n at index n); the lock and valet states
 * `{"carlocked","m_msgage_d","m_msgtime_d","valetmode"}` as `/api/status` shows them. Errors as the
 * command API: JSON `{"error","message"}` with 400, 409, 503, 504.
 */
import { statusBody } from '../../core/records/status.js';
import { PARANOID } from '../../core/records/fields.js';
import { forbidden, paranoid, sendError, sendJson } from '../reply.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { commandFailure } from '../../errors.js';

const RIGHTS = ['command', 'admin'] as const;
const MODES: Record<string, number> = { standard: 0, storage: 1, range: 3, performance: 4 };

type Build = (call: ApiCall) => string | { error: string };

const bad = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message });

function pin(call: ApiCall): string | { error: string } {
  const p = call.params.pin ?? '';
  return /^[0-9A-Za-z]{1,16}$/.test(p) ? p : { error: 'pin: 1–16 letters or digits' };
}

function slot(call: ApiCall, name: string): number | { error: string } {
  const v = call.params[name] ?? '';
  return /^\d{1,2}$/.test(v) && Number(v) < 32 ? Number(v) : { error: `${name}: 0–31` };
}

/** A route that runs one MP command (`#<code>,<params>`) and answers its outcome. */
function action(build: Build, list = false): ApiRoute {
  return {
    rights: RIGHTS,
    async handler(call) {
      const vehicle = await ownVehicle(call, 'control');
      if (!vehicle) return forbidden(call.reply);
      if (isRefusal(vehicle)) return refuse(call, vehicle);
      const text = build(call);
      if (typeof text !== 'string') return bad(call, text.error);
      try {
        const r = await call.ctx.commands.execute({
          vehicleId: vehicle.id,
          kind: 'mp',
          text,
          caller: `user:${call.principal.ownerName}`,
          via: 'api-v2',
        });
        if (!list) return sendJson(call.reply, 200, { output: r.output, result: r.result });
        // `<n>,<count>,<value>` per line: the value of slot n
        const values: string[] = [];
        for (const line of r.output.split('\n')) {
          const m = /^(\d+),\d+,(.*)$/.exec(line);
          if (m && Number(m[1]) < 32) values[Number(m[1])] = m[2]!;
        }
        return sendJson(call.reply, 200, { result: r.result, values: Array.from(values, (v) => v ?? '') });
      } catch (err) {
        return sendError(call.reply, commandFailure(err));
      }
    },
  };
}

export const chargeStart = action((call) => {
  const mode = call.params.mode;
  const current = call.params.current;
  if (mode !== undefined && MODES[mode] === undefined) return { error: 'mode: standard, storage, range or performance' };
  if (current !== undefined && !/^\d{1,3}$/.test(current)) return { error: 'current: amperes' };
  if (mode !== undefined && current !== undefined) return `#16,${MODES[mode]},${current}`;
  if (mode !== undefined) return `#10,${MODES[mode]}`;
  if (current !== undefined) return `#15,${current}`;
  return '#11';
});
export const chargeStop = action(() => '#12');
/** An MP command whose one parameter is the `pin`. */
const withPin = (code: number): ApiRoute =>
  action((call) => {
    const p = pin(call);
    return typeof p === 'string' ? `#${code},${p}` : p;
  });

export const lock = withPin(20);
export const unlock = withPin(22);
export const valetOn = withPin(21);
export const valetOff = withPin(23);
export const homelink = action((call) => {
  const b = call.params.button ?? '1';
  return /^[123]$/.test(b) ? `#24,${Number(b) - 1}` : { error: 'button: 1, 2 or 3' };
});
export const reset = action(() => '#5/0');
export const listFeatures = action(() => '#1', true);
/** MP 2 or 4: set slot `<name>` (0–31) to `value`. */
const setSlot = (code: number, name: string): ApiRoute =>
  action((call) => {
    const n = slot(call, name);
    const value = call.params.value;
    if (typeof n !== 'number') return n;
    if (value === undefined || /[\r\n]/.test(value)) return { error: 'value: required, one line' };
    return `#${code},${n},${value}`;
  });

export const setFeature = setSlot(2, 'feature');
export const listParameters = action(() => '#3', true);
export const setParameter = setSlot(4, 'parameter');
/** GET /api/lock/<id> and GET /api/valet/<id>: the lock and valet bits of the stored D record. */
export const lockState: ApiRoute = {
  async handler(call) {
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return forbidden(call.reply);
    const d = (await call.ctx.store.getCarMessages(vehicle.id)).find((m) => m.code === 'D');
    const body = statusBody(undefined, d, call.ctx.hub.seconds());
    if (body === PARANOID) return paranoid(call.reply);
    const pick: Record<string, string | number | null> = {};
    for (const k of ['carlocked', 'valetmode', 'm_msgtime_d', 'm_msgage_d']) if (k in body) pick[k] = body[k] ?? null;
    return sendJson(call.reply, 200, pick);
  },
};
