/** Words for push notifications on the account and vehicle pages: channels and delivery states. */
import type { DeliveryState, NotificationDelivery, PushChannel } from './types';

export const CHANNEL_LABEL: Readonly<Record<PushChannel, string>> = {
  apns: 'Apple (APNs)',
  fcm: 'Google (FCM)',
  expo: 'Expo',
  mail: 'e-mail',
  webhook: 'webhook',
  ntfy: 'ntfy',
};

/** A channel as the page names it (an unknown one as the server spells it). */
export function channelLabel(channel: string | null): string {
  return channel === null ? 'none' : (CHANNEL_LABEL[channel as PushChannel] ?? channel);
}

const STATE_LABEL: Readonly<Record<DeliveryState, string>> = {
  pending: 'waiting',
  receipt: 'sent, receipt awaited',
  delivered: 'delivered',
  failed: 'failed',
  skipped: 'skipped',
  removed: 'address removed',
};

/** A delivery's state in words; a pending one that was tried already is a retry. */
export function stateLabel(d: Pick<NotificationDelivery, 'state' | 'attempts'>): string {
  if (d.state === 'pending' && d.attempts.length > 0) return 'waiting to retry';
  return STATE_LABEL[d.state] ?? d.state;
}

/** The kind of a state for its colour: good, bad, warn or neutral. */
export function stateTone(state: DeliveryState): 'good' | 'bad' | 'warn' | 'neutral' {
  if (state === 'delivered') return 'good';
  if (state === 'failed' || state === 'removed') return 'bad';
  if (state === 'skipped') return 'warn';
  return 'neutral';
}

/** An alert type (`A` alert, `E` error, else info) as the notification lists name it. */
export function alertKind(type: string): 'alert' | 'error' | 'info' {
  return type === 'A' ? 'alert' : type === 'E' ? 'error' : 'info';
}
