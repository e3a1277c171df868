/**
 * The providers a configuration turns on. A provider without settings is off; one whose settings
 * are wrong (an unreadable key, a malformed service-account file) is off too, with the reason in
 * one line: the server starts either way and says once what is on and what is off.
 */
import type { Channel } from '../core/push/channels.js';
import { isVtsError } from '../errors.js';
import type { PushProvider, ProviderDeps } from './provider.js';
import { createApnsProvider } from './providers/apns.js';
import { createExpoProvider } from './providers/expo.js';
import { createFcmProvider } from './providers/fcm.js';
import { createMailProvider } from './providers/mail.js';
import { createNtfyProvider } from './providers/ntfy.js';
import { createWebhookProvider } from './providers/webhook.js';

/** The providers' settings (the `serve` and `push test` options of the same names). */
export interface PushProviderConfig {
  apnsKey?: string;
  apnsKeyId?: string;
  apnsTeamId?: string;
  apnsTopic?: string;
  apnsUrl?: string;
  fcmServiceAccount?: string;
  fcmUrl?: string;
  expoUrl?: string;
  expoAccessToken?: string;
  smtpUrl?: string;
  mailFrom?: string;
  /** Local and private addresses the users' webhook and ntfy targets may reach (`--webhook-allow`; none unless given). */
  webhookAllow?: string[];
}

export interface ProviderSet {
  providers: PushProvider[];
  /** Channels that are off, with why (for the log line and the deliveries the outbox skips). */
  off: Map<Channel, string>;
  /** Channels whose settings are wrong: the line that says so (also in `off`). */
  broken: Map<Channel, string>;
}

const given = (v: string | undefined): v is string => v !== undefined && v !== '';

/** Builds the providers that `c` turns on; never throws for a provider's settings. */
export function buildProviders(c: PushProviderConfig, deps: ProviderDeps): ProviderSet {
  const set: ProviderSet = { providers: [], off: new Map(), broken: new Map() };
  const add = (channel: Channel, offWhy: string | null, create: () => PushProvider): void => {
    if (offWhy !== null) {
      set.off.set(channel, `${channel} is off on this server (${offWhy})`);
      return;
    }
    try {
      set.providers.push(create());
    } catch (err) {
      if (!isVtsError(err, 'VTS_ERR_PUSH_CONFIG')) throw err;
      set.broken.set(channel, err.message);
      set.off.set(channel, `${channel} is off on this server (its settings are wrong)`);
    }
  };
  const apns = [c.apnsKey, c.apnsKeyId, c.apnsTeamId, c.apnsTopic];
  add('apns', apns.some(given) ? null : 'no --apns-key', () =>
    createApnsProvider(
      { keyFile: c.apnsKey ?? '', keyId: c.apnsKeyId ?? '', teamId: c.apnsTeamId ?? '', topic: c.apnsTopic ?? '', ...(given(c.apnsUrl) ? { url: c.apnsUrl } : {}) },
      deps,
    ),
  );
  add('fcm', given(c.fcmServiceAccount) ? null : 'no --fcm-service-account', () =>
    createFcmProvider({ serviceAccountFile: c.fcmServiceAccount ?? '', ...(given(c.fcmUrl) ? { url: c.fcmUrl } : {}) }, deps),
  );
  add('expo', given(c.expoUrl) || given(c.expoAccessToken) ? null : 'no --expo-url or --expo-access-token', () =>
    createExpoProvider({ ...(given(c.expoUrl) ? { url: c.expoUrl } : {}), ...(given(c.expoAccessToken) ? { accessToken: c.expoAccessToken } : {}) }, deps),
  );
  add('mail', given(c.smtpUrl) ? null : 'no --smtp-url', () =>
    createMailProvider({ smtpUrl: c.smtpUrl ?? '', ...(given(c.mailFrom) ? { from: c.mailFrom } : {}) }, deps),
  );
  const targets = { allow: c.webhookAllow ?? [] };
  add('webhook', null, () => createWebhookProvider(deps, targets));
  add('ntfy', null, () => createNtfyProvider(deps, targets));
  return set;
}

/** What a ProviderSet turned on and off, as data (it crosses from the delivery thread). */
export interface ProviderReport {
  on: { channel: Channel; description: string }[];
  off: [Channel, string][];
  broken: [Channel, string][];
}

export function providerReport(set: ProviderSet): ProviderReport {
  return {
    on: set.providers.map((p) => ({ channel: p.channel, description: p.description })),
    off: [...set.off],
    broken: [...set.broken],
  };
}

/** Says once what is on and off: one line per provider. */
export function reportProviders(report: ProviderReport, log: ProviderDeps['log']): void {
  for (const p of report.on) log.info({ channel: p.channel }, `push: ${p.channel} ${p.description}`);
  const broken = new Map(report.broken);
  for (const [channel, why] of report.off) {
    const wrong = broken.get(channel);
    if (wrong) log.error({ channel }, `push: ${channel} is off: ${wrong}`);
    else log.info({ channel }, `push: ${why}`);
  }
}
