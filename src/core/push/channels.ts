/**
 * The channels a notification is delivered by (issue 15): the reference's four push types for the
 * apps' `p` subscriptions (docs/protocol/mp.md §12.2), and the targets a user adds (webhook, ntfy).
 */

export const CHANNELS = ['apns', 'fcm', 'expo', 'mail', 'webhook', 'ntfy'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The channels of a user's own targets (`vts notify add`, the dashboard's account page). */
export const TARGET_KINDS = ['webhook', 'ntfy'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export function isChannel(value: string): value is Channel {
  return (CHANNELS as readonly string[]).includes(value);
}

export function isTargetKind(value: string): value is TargetKind {
  return (TARGET_KINDS as readonly string[]).includes(value);
}

/** The key the reference skips as an invalid APNs token (an app bug of old). */
const BROKEN_APNS_KEY = '{length=32';

/**
 * The channel that delivers to a `p` subscription of `pushType` (as the reference names its
 * senders: `apns`, `gcm`, `expo`, `mail`; `fcm` too), or undefined when none does: an unknown push
 * type, a `mail` subscription whose key is no address, the reference's invalid APNs key. Such rows
 * are skipped (and logged), as the reference skips them.
 */
export function subscriptionChannel(pushType: string, pushKeyValue: string): Channel | undefined {
  switch (pushType) {
    case 'apns':
      return pushKeyValue === BROKEN_APNS_KEY || pushKeyValue === '' ? undefined : 'apns';
    case 'gcm':
    case 'fcm':
      return pushKeyValue === '' ? undefined : 'fcm';
    case 'expo':
      return pushKeyValue === '' ? undefined : 'expo';
    case 'mail':
      return pushKeyValue.includes('@') ? 'mail' : undefined;
    default:
      return undefined;
  }
}
