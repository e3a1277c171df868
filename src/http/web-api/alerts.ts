/**
 * Alert rules and the owner's alert settings (docs/web-api.md "Alerts", docs/alerts.md):
 * `GET|POST /api/alerts/<VEHICLEID>`, `PUT|DELETE /api/alerts/<VEHICLEID>/<id>`, and
 * `GET|PUT /api/alerts` for the quiet hours. A rule is a JSON body `{"kind", …settings}` checked
 * by src/core/alerts/rules.ts: a bad value is a 400 whose message starts with the field's name.
 * Reading needs a login; changing needs the right `push.admin` (or `admin`; a web session has
 * every right). Another owner's vehicle is refused as an unknown one, another owner's place as an
 * unknown place.
 */
import { checkQuietHours, type QuietHours } from '../../core/alerts/delivery.js';
import { checkRule } from '../../core/alerts/rules.js';
import type { StoredRule } from '../../store/alerts-store.js';
import { audit, type AuditAction } from '../../util/audit.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { status } from '../reply.js';
import { badInput, idOf, notFound, sendOrdered } from './sessions-common.js';
import { notYours } from './session.js';

const CHANGE_RIGHTS = ['push.admin', 'admin'] as const;

/** The most rules one vehicle may have. */
export const MAX_RULES = 50;

/** A rule in the documented key order: id, kind, its settings (threshold, after, place), created. */
export function ruleJson(r: StoredRule): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, kind: r.kind };
  if ('threshold' in r) out.threshold = r.threshold;
  if ('after' in r) out.after = r.after;
  if ('place' in r) out.place = r.place;
  out.created = r.created;
  return out;
}

const quietJson = (q: QuietHours | null) => ({ quietHours: q === null ? null : { from: q.from, to: q.to, timezone: q.timezone } });

/**
 * The request's JSON object: no body is an empty one (whose missing kind is the 400); a body that
 * is not JSON (a form, whose values are all text) is null, the 400 that asks for JSON.
 */
function body(call: ApiCall): unknown {
  const b = call.req.body;
  if (b === undefined || b === null) return {};
  const json = /^application\/json\b/i.test(call.req.headers['content-type'] ?? '');
  return json && typeof b === 'object' && !Buffer.isBuffer(b) ? b : null;
}

/** The message of a bad field, starting with the field's name. */
const fieldMessage = (field: string, message: string) => (message.startsWith(field) ? message : `${field}: ${message}`);

/** The rule of the body, checked against the caller's own places; a 400 sent when it is bad. */
async function checkedRule(call: ApiCall) {
  const places = await call.ctx.store.drives.listPlaces(call.principal.ownerId);
  const check = checkRule(body(call), places.map((p) => p.id));
  if (!check.ok) {
    badInput(call, fieldMessage(check.field, check.message));
    return null;
  }
  return check.rule;
}

function changed(call: ApiCall, action: AuditAction, vehicleId: string, detail: Record<string, unknown>): void {
  call.ctx.alerts?.rulesChanged(vehicleId);
  audit(call.ctx.log, action, call.principal.ownerName, 'http', { user: call.principal.ownerName, vehicle: vehicleId, ...detail, client: clientAddress(call.req) });
}

/** `GET /api/alerts` (the caller's settings) and `GET /api/alerts/<VEHICLEID>` (its rules, by id). */
export const readAlerts: ApiRoute = {
  async handler(call) {
    const { ctx, reply, args } = call;
    if (args.length === 0 || (args.length === 1 && args[0] === '')) {
      return sendOrdered(reply, 200, quietJson(await ctx.store.alerts.getQuietHours(call.principal.ownerId)));
    }
    if (args.length !== 1) return notFound(call, 'GET /api/alerts or /api/alerts/<vehicle>');
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    return sendOrdered(reply, 200, (await ctx.store.alerts.listRules(v.id)).map(ruleJson));
  },
};

/** `POST /api/alerts/<VEHICLEID>` with a rule: 201 and the rule with its id. */
export const addAlert: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, reply, args } = call;
    if (args.length !== 1) return notFound(call, 'POST /api/alerts/<vehicle>');
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    const rule = await checkedRule(call);
    if (rule === null) return reply;
    if ((await ctx.store.alerts.listRules(v.id)).length >= MAX_RULES) return badInput(call, `kind: the vehicle has ${MAX_RULES} rules already: remove one first`);
    const stored = await ctx.store.alerts.addRule(v.id, rule, ctx.hub.seconds());
    changed(call, 'alert.add', v.id, { rule: stored.id, kind: stored.kind });
    return sendOrdered(reply, 201, ruleJson(stored));
  },
};

/**
 * The caller's vehicle and the rule id of `<VEHICLEID>/<id>`; else the answer is sent (another
 * owner's vehicle is refused as such, whatever the rule id) and null returned.
 */
async function ruleOfVehicle(call: ApiCall): Promise<{ vehicleId: string; id: number } | null> {
  if (call.args.length !== 2) {
    notFound(call, 'no such rule');
    return null;
  }
  const v = await ownVehicle(call, 'owner');
  if (!v || isRefusal(v)) {
    if (v) refuse(call, v);
    else notYours(call);
    return null;
  }
  const id = idOf(call.args[1]);
  if (id === null) {
    notFound(call, 'no such rule');
    return null;
  }
  return { vehicleId: v.id, id };
}

/** `PUT /api/alerts/<VEHICLEID>/<id>` with the whole rule: 200 and the rule (a changed rule starts afresh). */
async function changeRule(call: ApiCall) {
  const { ctx, reply } = call;
  const target = await ruleOfVehicle(call);
  if (target === null) return reply;
  const rule = await checkedRule(call);
  if (rule === null) return reply;
  const stored = await ctx.store.alerts.updateRule(target.vehicleId, target.id, rule);
  if (!stored) return notFound(call, 'no such rule');
  changed(call, 'alert.change', target.vehicleId, { rule: target.id, kind: stored.kind });
  return sendOrdered(reply, 200, ruleJson(stored));
}

/** `DELETE /api/alerts/<VEHICLEID>/<id>`: 204. */
export const removeAlert: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, reply } = call;
    const target = await ruleOfVehicle(call);
    if (target === null) return reply;
    if (!(await ctx.store.alerts.removeRule(target.vehicleId, target.id))) return notFound(call, 'no such rule');
    changed(call, 'alert.remove', target.vehicleId, { rule: target.id });
    return status(reply, 204).send();
  },
};

/** `PUT /api/alerts` with `{"quietHours": {"from","to","timezone"} | null}`: 200 and the settings. */
async function setSettings(call: ApiCall) {
  const { ctx, reply, principal } = call;
  const b = body(call);
  if (b === null || typeof b !== 'object') return badInput(call, 'body: the body must be a JSON object (Content-Type: application/json)');
  if (!('quietHours' in b)) return badInput(call, 'quietHours: {"from":"22:00","to":"07:00","timezone":"Europe/Berlin"}, or null for none');
  let quiet: QuietHours | null = null;
  const given = (b as { quietHours: unknown }).quietHours;
  if (given !== null) {
    const check = checkQuietHours(given);
    if (!check.ok) return badInput(call, fieldMessage(check.field === 'body' ? 'quietHours' : check.field, check.message));
    quiet = check.quiet;
  }
  await ctx.store.alerts.setQuietHours(principal.ownerId, quiet);
  audit(ctx.log, 'alert.quiet', principal.ownerName, 'http', { user: principal.ownerName, quiet: quiet === null ? 'off' : `${quiet.from}-${quiet.to} ${quiet.timezone}`, client: clientAddress(call.req) });
  return sendOrdered(reply, 200, quietJson(quiet));
}

/** `PUT /api/alerts` (the settings) and `PUT /api/alerts/<VEHICLEID>/<id>` (a rule). */
export const putAlerts: ApiRoute = {
  rights: CHANGE_RIGHTS,
  handler(call) {
    const { args } = call;
    if (args.length === 0 || (args.length === 1 && args[0] === '')) return setSettings(call);
    return changeRule(call);
  },
};
