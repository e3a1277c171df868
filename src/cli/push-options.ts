/**
 * The push options: the providers' settings (`serve` and `push test`) and the delivery rules
 * (`serve`). Every option is also `VTS_…` and a `--config` key (src/util/config.ts).
 */
import type { Command } from 'commander';
import { addConfigOption, parseBucket, parseCountIn } from '../util/config.js';
import { VtsError } from '../errors.js';
import type { PushProviderConfig } from '../push/providers.js';
import { DEFAULT_PUSH_LIMIT, type PushConfig } from '../push/push-config.js';
import { DEFAULT_DISPATCHER_OPTIONS as D } from '../push/dispatcher.js';
import { parseAllowList } from '../push/providers/address-policy.js';

/** The providers' options: the same names as the settings they give (src/push/providers.ts). */
export type PushProviderOptions = PushProviderConfig;

/** Every provider setting, to take them out of a command's other options. */
const PROVIDER_KEYS = [
  'apnsKey',
  'apnsKeyId',
  'apnsTeamId',
  'apnsTopic',
  'apnsUrl',
  'fcmServiceAccount',
  'fcmUrl',
  'expoUrl',
  'expoAccessToken',
  'smtpUrl',
  'mailFrom',
  'webhookAllow',
] as const satisfies readonly (keyof PushProviderConfig)[];

export interface PushDeliveryOptions extends PushProviderOptions {
  pushLimit: { burst: number; perMinute: number };
  pushRetry: number;
  pushGiveUp: number;
  pushTimeout: number;
  expoReceiptDelay: number;
}

/** An http(s) URL (without echoing what was given: it may hold a credential). */
export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new VtsError('VTS_ERR_CONFIG', 'not a URL: give http(s)://host[:port]');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new VtsError('VTS_ERR_CONFIG', 'not an http(s) URL');
  return value.replace(/\/+$/, '');
}

export function addPushProviderOptions(cmd: Command): Command {
  addConfigOption(cmd, '--apns-key <file>', 'APNs: the .p8 signing key (token authentication; turns APNs on)');
  addConfigOption(cmd, '--apns-key-id <id>', "APNs: the key's id");
  addConfigOption(cmd, '--apns-team-id <id>', 'APNs: the Apple developer team id');
  addConfigOption(cmd, '--apns-topic <bundle id>', "APNs: the app's bundle id (e.g. com.openvehicles.ovms)");
  addConfigOption(cmd, '--apns-url <url>', "APNs host for every subscription (default Apple's, the sandbox host for sandbox subscriptions)", { parse: parseHttpUrl });
  addConfigOption(cmd, '--fcm-service-account <file>', "FCM: the Firebase project's service-account JSON file (turns FCM on; gcm subscriptions use it)");
  addConfigOption(cmd, '--fcm-url <url>', 'FCM HTTP v1 host (default https://fcm.googleapis.com)', { parse: parseHttpUrl });
  addConfigOption(cmd, '--expo-url <url>', "Expo push API host (turns Expo on; Expo's own is https://exp.host)", { parse: parseHttpUrl });
  addConfigOption(cmd, '--expo-access-token <token>', 'Expo access token (turns Expo on, at https://exp.host unless --expo-url)');
  addConfigOption(cmd, '--smtp-url <url>', 'e-mail notifications through this server: smtp://user:password@host:587 or smtps://…:465 (turns mail on)');
  addConfigOption(cmd, '--mail-from <address>', 'sender of e-mail notifications (default vts@<host name>)');
  addConfigOption(
    cmd,
    '--webhook-allow <list>',
    "local or private addresses the users' webhook and ntfy targets may reach (refused by default): comma-separated addresses and networks (192.168.1.0/24,fd00::/8), or private (all)",
    { parse: parseAllowList },
  );
  return cmd;
}

export function addPushDeliveryOptions(cmd: Command): Command {
  const limitText = `${DEFAULT_PUSH_LIMIT.burst}/${DEFAULT_PUSH_LIMIT.perMinute}`;
  addConfigOption(cmd, '--push-limit <burst/min>', 'notifications a vehicle may raise at once/per minute after (0/0 = no limit)', {
    default: DEFAULT_PUSH_LIMIT,
    defaultText: limitText,
    parse: parseBucket,
  });
  addConfigOption(cmd, '--push-retry <seconds>', 'wait before retrying a failed delivery; doubles each time, up to 30 minutes', {
    default: D.retryFirstSeconds,
    parse: parseCountIn(1, 3600),
  });
  addConfigOption(cmd, '--push-give-up <seconds>', 'stop retrying a delivery this long after its notification', {
    default: D.giveUpSeconds,
    parse: parseCountIn(1, 30 * 86400),
  });
  addConfigOption(cmd, '--push-timeout <seconds>', 'time one delivery attempt may take', { default: D.timeoutSeconds, parse: parseCountIn(1, 300) });
  addConfigOption(cmd, '--expo-receipt-delay <seconds>', "check Expo's receipt this long after it accepted a message", {
    default: D.receiptDelaySeconds,
    parse: parseCountIn(1, 3600),
  });
  return cmd;
}

export function pushProviderConfig(o: PushProviderOptions): PushProviderConfig {
  return Object.fromEntries(PROVIDER_KEYS.map((k) => [k, o[k]])) as PushProviderConfig;
}

export function pushConfig(o: PushDeliveryOptions): PushConfig {
  return {
    ...pushProviderConfig(o),
    limit: o.pushLimit,
    retrySeconds: o.pushRetry,
    giveUpSeconds: o.pushGiveUp,
    timeoutSeconds: o.pushTimeout,
    receiptDelaySeconds: o.expoReceiptDelay,
  };
}
