/**
 * The caller's push notifications (docs/web-api.md "Push notifications"): the apps'
 * subscriptions with their last delivery result, the user's own targets (webhook, ntfy), and the
 * notification history with each delivery's attempts. Reading needs a login; changing needs the
 * right `push.admin` (or `admin`; a web session has every right).
 */
import { audit } from '../../util/audit.js';
import { clientAddress } from '../params.js';
import { subscriptionChannel, isTargetKind } from '../../core/push/channels.js';
import { MAX_TARGETS, maskedUrl, targetSecretProblem, targetUrlProblem } from '../../core/push/targets.js';
import type { NotificationView, NotifyTarget, SubscriptionStatus } from '../../store/push-store.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { sendError, sendJson, status } from '../reply.js';
import { notYours } from './session.js';

const CHANGE_RIGHTS = ['push.admin', 'admin'] as const;
const MAX_HISTORY = 200;

/** A device token shown by its first characters (enough to tell two apart); a mail address in full (it is the owner's). */
function shownKey(s: SubscriptionStatus): string {
  if (s.pushType === 'mail') return s.pushKeyValue;
  return s.pushKeyValue.length > 12 ? `${s.pushKeyValue.slice(0, 8)}…` : s.pushKeyValue;
}

function subscriptionRow(s: SubscriptionStatus) {
  return {
    vehicleId: s.vehicleId,
    appId: s.appId,
    pushType: s.pushType,
    channel: subscriptionChannel(s.pushType, s.pushKeyValue) ?? null,
    keyType: s.pushKeyType,
    key: shownKey(s),
    lastUpdated: s.lastUpdated,
    lastResult: s.lastResult,
    lastTime: s.lastTime,
  };
}

/** Never the secret, nor a password in the URL. */
function targetRow(t: NotifyTarget) {
  return { id: t.id, kind: t.kind, url: maskedUrl(t.url), signed: t.secret !== '', created: t.created, lastResult: t.lastResult, lastTime: t.lastTime };
}

/** A notification as `GET /api/notifications` answers it: the record's fields, spelled out (a JSON value). */
function notificationRow(n: NotificationView) {
  return {
    id: n.id,
    vehicleId: n.vehicleId,
    alertType: n.alertType,
    text: n.text,
    time: n.time,
    limited: n.limited,
    event: n.event,
    rule: n.rule,
    heldUntil: n.heldUntil,
    deliveries: n.deliveries.map((d) => ({
      id: d.id,
      channel: d.channel,
      appId: d.appId,
      targetId: d.targetId,
      state: d.state,
      attempts: d.attempts.map((a) => ({ time: a.time, state: a.state, detail: a.detail })),
    })),
  };
}

const badInput = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message });
const notFound = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_NOT_FOUND', message });

/** `GET /api/push/subscriptions[/<VEHICLEID>]`, `GET /api/push/targets`. */
export const readPush: ApiRoute = {
  async handler(call) {
    const { ctx, reply, principal, args } = call;
    const [what, vehicleArg] = args;
    if (what === 'subscriptions' && args.length <= 2) {
      let vehicleId: string | undefined;
      if (vehicleArg !== undefined) {
        const v = await ownVehicle({ ...call, args: [vehicleArg] }, 'owner');
        if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
        vehicleId = v.id;
      }
      const subs = await ctx.store.push.listSubscriptions(principal.ownerId, vehicleId);
      return sendJson(reply, 200, subs.map(subscriptionRow));
    }
    if (what === 'targets' && args.length === 1) {
      return sendJson(reply, 200, (await ctx.store.push.listTargets(principal.ownerId)).map(targetRow));
    }
    return notFound(call, 'GET /api/push/subscriptions[/<vehicle>] or /api/push/targets');
  },
};

/** `POST /api/push/targets` with `kind` (webhook, ntfy), `url` and, for a webhook, `secret`. */
export const addTarget: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, reply, principal, args, params } = call;
    if (args[0] !== 'targets' || args.length !== 1) return notFound(call, 'POST /api/push/targets');
    const kind = (params.kind ?? '').toLowerCase();
    if (!isTargetKind(kind)) return badInput(call, 'kind: webhook or ntfy');
    const url = params.url ?? '';
    const urlProblem = targetUrlProblem(kind, url);
    if (urlProblem) return badInput(call, urlProblem);
    const secret = params.secret ?? '';
    if (secret !== '' && kind !== 'webhook') return badInput(call, 'a secret is for webhooks (ntfy takes its access in the URL)');
    const secretProblem = targetSecretProblem(secret);
    if (secretProblem) return badInput(call, secretProblem);
    if ((await ctx.store.push.listTargets(principal.ownerId)).length >= MAX_TARGETS) {
      return badInput(call, `you have ${MAX_TARGETS} targets already: remove one first`);
    }
    const target = await ctx.store.push.addTarget(principal.ownerId, kind, url, secret, ctx.hub.seconds());
    audit(ctx.log, 'notify.add', principal.ownerName, 'http', { user: principal.ownerName, target: target.id, kind, signed: secret !== '', client: clientAddress(call.req) });
    return sendJson(reply, 201, targetRow(target));
  },
};

/** `DELETE /api/push/subscriptions/<VEHICLEID>/<appid>`, `DELETE /api/push/targets/<id>`. */
export const removePush: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, reply, principal, args } = call;
    const [what, first, second] = args;
    if (what === 'subscriptions' && first !== undefined && second !== undefined && args.length === 3) {
      const v = await ownVehicle({ ...call, args: [first] }, 'owner');
      if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
      if (!(await ctx.store.push.removeSubscription(principal.ownerId, v.id, second))) return notFound(call, 'no such subscription');
      audit(ctx.log, 'subscription.remove', principal.ownerName, 'http', { user: principal.ownerName, vehicle: v.id, app: second, client: clientAddress(call.req) });
      return status(reply, 204).send();
    }
    if (what === 'targets' && first !== undefined && args.length === 2) {
      if (!/^\d{1,9}$/.test(first) || !(await ctx.store.push.removeTarget(principal.ownerId, Number(first)))) return notFound(call, 'no such target');
      audit(ctx.log, 'notify.remove', principal.ownerName, 'http', { user: principal.ownerName, target: Number(first), client: clientAddress(call.req) });
      return status(reply, 204).send();
    }
    return notFound(call, 'DELETE /api/push/subscriptions/<vehicle>/<app id> or /api/push/targets/<id>');
  },
};

/** `GET /api/notifications/<VEHICLEID>?limit=`: the newest notifications, with deliveries and attempts. */
export const notifications: ApiRoute = {
  async handler(call) {
    const { ctx, reply, principal, params } = call;
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    const limitText = params.limit ?? '50';
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_HISTORY) {
      return badInput(call, `limit: 1 to ${MAX_HISTORY}`);
    }
    const list = await ctx.store.push.listNotifications(principal.ownerId, v.id, Number(limitText));
    return sendJson(reply, 200, list.map(notificationRow));
  },
};
