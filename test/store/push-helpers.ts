/**
 * Shared set-up of the push outbox tests (push-outbox.test.ts, push-claims.test.ts).
 */
import type { Channel } from '../../src/core/push/channels.js';
import type { AddedNotification, NotificationRules } from '../../src/store/push-store.js';
import type { Store } from '../../src/store/store.js';

/** Every channel on, no rate limit, pushed. */
export const RULES: NotificationRules = { off: new Map(), limit: { burst: 0, intervalSeconds: 60 }, push: true };

export function rules(over: { off?: [Channel, string][]; burst?: number; intervalSeconds?: number; push?: boolean } = {}): NotificationRules {
  return {
    off: new Map(over.off ?? []),
    limit: { burst: over.burst ?? 0, intervalSeconds: over.intervalSeconds ?? 60 },
    push: over.push ?? true,
  };
}

export interface Sub {
  appId: string;
  pushType: string;
  key: string;
  keyType?: string;
  active?: boolean;
  vehicleId?: string;
}

/** Upserts a `p` subscription of the owner (vehicle DEMO1 unless given). */
export async function subscribe(store: Store, ownerId: number, s: Sub, lastUpdated = 1): Promise<void> {
  await store.upsertPushSubscription({
    ownerId,
    vehicleId: s.vehicleId ?? 'DEMO1',
    appId: s.appId,
    pushType: s.pushType,
    pushKeyType: s.keyType ?? 'production',
    pushKeyValue: s.key,
    lastUpdated,
    active: s.active ?? true,
  });
}

/** A notification of the vehicle (DEMO1 unless given) at `time`. */
export function notify(
  store: Store,
  ownerId: number,
  time: number,
  r: NotificationRules = RULES,
  vehicleId = 'DEMO1',
  text = `alert at ${time}`,
): Promise<AddedNotification> {
  return store.push.addNotification({ ownerId, vehicleId, alertType: 'A', text, time }, r);
}
