/**
 * ntfy targets (a user's own, `vts notify add <user> ntfy <topic url>`): the text POSTed to the
 * topic URL (`https://ntfy.sh/mytopic` or a self-hosted server), with the vehicle as the title and
 * a priority and tag per alert type. user:password in the URL is sent as Basic auth. The answer is
 * read as for webhooks.
 */
import { vehicleLabel } from '../../core/push/message.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../provider.js';
import { USER_AGENT, targetProvider, type TargetSettings } from './webhook.js';

/** ntfy's priority: 4 (high) for alerts (`A`) and vehicle errors (`E`), 3 (default) otherwise. */
export function ntfyPriority(alertType: string): 4 | 3 {
  return alertType === 'A' || alertType === 'E' ? 4 : 3;
}

/** ntfy's tag (an emoji short code) per alert type. */
export function ntfyTags(alertType: string): string {
  switch (alertType) {
    case 'A':
      return 'warning';
    case 'E':
      return 'rotating_light';
    case 'I':
      return 'information_source';
    default:
      return 'bell';
  }
}

/**
 * A header value as ntfy reads it: one line, and RFC 2047 (`=?UTF-8?B?…?=`, which ntfy decodes)
 * when it is not plain ASCII (fetch takes only Latin-1 header values).
 */
export function headerValue(value: string): string {
  const line = value.replace(/[\r\n\t]+/g, ' ').trim();
  if (/^[\x20-\x7e]*$/.test(line)) return line;
  return `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

/** The request a delivery is POSTed as (without the URL's Basic auth, added when it is sent). */
export function ntfyRequest(item: DeliveryItem): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'user-agent': USER_AGENT,
      title: headerValue(vehicleLabel(item.vehicleId, item.vehicleName)),
      priority: String(ntfyPriority(item.alertType)),
      tags: ntfyTags(item.alertType),
    },
    body: item.text,
  };
}

export function createNtfyProvider(deps: ProviderDeps, settings: TargetSettings = {}): PushProvider {
  return targetProvider('ntfy', ntfyRequest, deps, settings);
}
