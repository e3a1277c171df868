/**
 * End-to-end push tests: every provider's local endpoint (test/support/push/), a real server
 * configured to deliver to them, an MP app that subscribes with `p`, and a car that raises `P`.
 */
import type { TestContext } from 'node:test';
import type { ServerConfig } from '../../src/server/server.js';
import type { PushConfig } from '../../src/push/push-config.js';
import type { NotificationView } from '../../src/store/push-store.js';
import { startApnsEndpoint, type ApnsEndpoint } from '../support/push/apns-endpoint.js';
import { startFcmEndpoint, type FcmEndpoint } from '../support/push/fcm-endpoint.js';
import { ExpoEndpoint } from '../support/push/expo-endpoint.js';
import { SmtpSink } from '../support/push/smtp-sink.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { eventually, harness, roundTrip, type Harness } from '../mp/helpers.js';

export const VID = 'TESTCAR';
export const NETPASS = 'NETPASS';

export interface Endpoints {
  apns: ApnsEndpoint;
  fcm: FcmEndpoint;
  expo: ExpoEndpoint;
  smtp: SmtpSink;
  /** Webhooks and ntfy topics. */
  http: HttpReceiver;
  close(): Promise<void>;
}

export async function startEndpoints(ctx: TestContext): Promise<Endpoints> {
  const [apns, fcm, expo, smtp, http] = await Promise.all([startApnsEndpoint(), startFcmEndpoint(), ExpoEndpoint.start(), SmtpSink.start(), HttpReceiver.start()]);
  let closing: Promise<void> | undefined;
  const e: Endpoints = {
    apns,
    fcm,
    expo,
    smtp,
    http,
    close() {
      closing ??= Promise.all([apns.close(), fcm.close(), expo.close(), smtp.close(), http.close()]).then(() => undefined);
      return closing;
    },
  };
  ctx.after(() => e.close());
  return e;
}

/** Provider settings that deliver to the endpoints; quick retries and receipts for tests. */
export function pushConfigFor(e: Endpoints, over: Partial<PushConfig> = {}): PushConfig {
  return {
    apnsKey: e.apns.settings.keyFile,
    apnsKeyId: e.apns.settings.keyId,
    apnsTeamId: e.apns.settings.teamId,
    apnsTopic: e.apns.settings.topic,
    apnsUrl: e.apns.url,
    ca: e.apns.ca,
    fcmServiceAccount: e.fcm.serviceAccountFile,
    fcmUrl: e.fcm.url,
    expoUrl: e.expo.url,
    smtpUrl: e.smtp.url,
    mailFrom: 'vts@test.invalid',
    // the test endpoints are on loopback, refused unless allowed
    webhookAllow: ['127.0.0.1'],
    limit: { burst: 100, perMinute: 600 },
    retrySeconds: 1,
    receiptDelaySeconds: 1,
    timeoutSeconds: 3,
    pollMs: 100,
    ...over,
  };
}

/** A server delivering to the endpoints, with user `demo` and vehicle TESTCAR. */
export async function pushHarness(ctx: TestContext, e: Endpoints, push: Partial<PushConfig> = {}, config: Partial<ServerConfig> = {}): Promise<Harness> {
  return harness(ctx, { ...config, push: pushConfigFor(e, push) });
}

/** An app subscribes with `p` (the reference's form with the car password) and waits until it is stored. */
export async function subscribe(h: Harness, subs: readonly { appId: string; pushType: string; keyType: string; key: string }[]): Promise<void> {
  const { c: app } = await h.client('A');
  for (const s of subs) app.send('p', `${s.appId},${s.pushType},${s.keyType},${VID},${NETPASS},${s.key}`);
  await roundTrip(app);
  await eventually(async () => ((await h.t.server.store.push.listSubscriptions(h.ownerId, VID)).length >= subs.length ? true : undefined), 'the subscriptions');
}

/** The vehicle's notifications once `done` holds for them. */
export async function notificationsWhen(h: Harness, done: (ns: NotificationView[]) => boolean, timeoutMs = 15_000): Promise<NotificationView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ns = await h.t.server.store.push.listNotifications(h.ownerId, VID, 100);
    if (done(ns)) return ns;
    if (Date.now() > deadline) throw new Error(`notifications did not reach the expected state: ${JSON.stringify(ns)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every delivery of every notification has ended (none pending or awaiting a receipt). */
export const allSettled = (ns: NotificationView[]): boolean =>
  ns.length > 0 && ns.every((n) => n.deliveries.every((d) => d.state !== 'pending' && d.state !== 'receipt'));
