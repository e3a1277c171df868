/**
 * `vts push test <user> [--vehicle ID]`: sends a test notification through every push
 * subscription of the user (of one vehicle, or all) and every target of the user, straight
 * through the providers the options configure (the same options as `serve`, so `--config` of the
 * server serves here too), prints each outcome, and notes it as the subscription's last result.
 * An address the provider calls invalid is removed, as the server would.
 */
import type { Command } from 'commander';
import { addConfigOption, parseCountIn, resolveOptions } from '../util/config.js';
import { subscriptionChannel, type Channel } from '../core/push/channels.js';
import { VtsError } from '../errors.js';
import { createLogger } from '../util/log.js';
import type { PushProvider, SendResult } from '../push/provider.js';
import { buildProviders } from '../push/providers.js';
import type { DeliveryItem, ResultRef } from '../store/push-store.js';
import type { Store } from '../store/store.js';
import { addPushProviderOptions, pushProviderConfig, type PushProviderOptions } from './push-options.js';
import { addStoreOptions, formatTable, validateUserName, validateVehicleId, withStore, type StoreCommandOptions } from './shared-options.js';

interface TestOptions extends StoreCommandOptions, PushProviderOptions {
  vehicle?: string;
  pushTimeout: number;
}

export const TEST_TEXT = 'Test notification from vts: push notifications reach you.';

interface Planned {
  vehicle: string;
  to: string;
  channel: Channel | undefined;
  item: DeliveryItem;
  ref: ResultRef;
}

interface Row {
  vehicle: string;
  to: string;
  channel: string;
  outcome: string;
  ok: boolean;
}

function describe(result: SendResult): { text: string; ok: boolean } {
  switch (result.kind) {
    case 'delivered':
      return { text: result.detail, ok: true };
    case 'accepted':
      return { text: `${result.detail} (the receipt comes later)`, ok: true };
    case 'wait':
      return { text: result.detail, ok: true };
    case 'temporary':
      return { text: `failed for now: ${result.detail}`, ok: false };
    case 'permanent':
      return { text: `failed: ${result.detail}`, ok: false };
    case 'invalid':
      return { text: `${result.detail}: subscription removed`, ok: false };
  }
}

/** What to send: a delivery per subscription and target, as the outbox would make it. */
async function plan(store: Store, user: string, vehicleId: string | undefined): Promise<Planned[]> {
  const owner = await store.getOwnerByName(user);
  if (!owner) throw new VtsError('VTS_ERR_UNKNOWN_USER', user);
  const vehicles = await store.listVehicles(owner.id);
  if (vehicleId !== undefined && !vehicles.some((v) => v.id === vehicleId)) {
    throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', `${vehicleId} (of ${user})`);
  }
  const nameOf = (id: string): string => vehicles.find((v) => v.id === id)?.name ?? '';
  const time = Math.floor(Date.now() / 1000);
  const base = { id: 0, notificationId: 0, state: 'pending' as const, attempts: 0, ownerId: owner.id, ownerName: owner.name, alertType: 'I', text: TEST_TEXT, time, event: null, rule: null, heldUntil: null, receipt: '' };
  const out: Planned[] = [];
  for (const s of await store.push.listSubscriptions(owner.id, vehicleId)) {
    const channel = subscriptionChannel(s.pushType, s.pushKeyValue);
    out.push({
      vehicle: s.vehicleId,
      to: `${s.pushType} ${s.appId}`,
      channel,
      item: { ...base, channel: channel ?? 'apns', vehicleId: s.vehicleId, vehicleName: nameOf(s.vehicleId), appId: s.appId, targetId: 0, keyType: s.pushKeyType, address: s.pushKeyValue, secret: '' },
      ref: { ownerId: owner.id, vehicleId: s.vehicleId, appId: s.appId, address: s.pushKeyValue },
    });
  }
  // a user's targets hear every vehicle: tested with the one asked for, or the first
  const vid = vehicleId ?? vehicles[0]?.id ?? '';
  for (const t of await store.push.listTargets(owner.id)) {
    out.push({
      vehicle: vid || '-',
      to: `${t.kind} target ${t.id}`,
      channel: t.kind,
      item: { ...base, channel: t.kind, vehicleId: vid, vehicleName: nameOf(vid), appId: '', targetId: t.id, keyType: '', address: t.url, secret: t.secret },
      ref: { targetId: t.id },
    });
  }
  return out;
}

async function sendOne(p: Planned, providers: Map<Channel, PushProvider>, off: Map<Channel, string>, timeoutMs: number): Promise<{ text: string; ok: boolean; result?: SendResult }> {
  if (p.channel === undefined) return { text: 'skipped: no channel delivers this push type', ok: false };
  const provider = providers.get(p.channel);
  if (!provider) return { text: `skipped: ${off.get(p.channel) ?? `${p.channel} is off`}`, ok: false };
  const result = (await provider.send([p.item], AbortSignal.timeout(timeoutMs)))[0] ?? { kind: 'temporary', detail: 'no result' };
  return { ...describe(result), result };
}

export function registerPush(program: Command): void {
  const push = program.command('push').description('push notifications');
  const test = push
    .command('test')
    .description("send a test notification through every push subscription and target of a user, and print each outcome")
    .argument('<user>', 'the user')
    .option('--vehicle <id>', "only this vehicle's subscriptions");
  addStoreOptions(test);
  // the name serve gives it: one --config file serves both
  addConfigOption(test, '--push-timeout <seconds>', 'time each delivery may take', { default: 15, parse: parseCountIn(1, 300) });
  addPushProviderOptions(test);
  test.action(async (userArg: string) => {
    const o = resolveOptions<TestOptions>(test);
    const user = validateUserName(userArg);
    const vehicleId = o.vehicle === undefined ? undefined : validateVehicleId(o.vehicle);
    const timeout = o.pushTimeout;
    const log = createLogger('warn');
    const set = buildProviders(pushProviderConfig(o), { log, now: Date.now });
    for (const [channel, line] of set.broken) process.stderr.write(`vts: ${channel} is off: ${line}\n`);
    const providers = new Map(set.providers.map((p) => [p.channel, p] as const));
    const rows: Row[] = [];
    try {
      await withStore(o, async (store) => {
        const planned = await plan(store, user, vehicleId);
        if (planned.length === 0) {
          throw new VtsError('VTS_ERR_INVALID_INPUT', `${user} has no push subscriptions${vehicleId ? ` for ${vehicleId}` : ''} and no notification targets: an app subscribes when it connects; add a target with 'vts notify add'`);
        }
        await Promise.all(
          planned.map(async (p) => {
            const { text, ok, result } = await sendOne(p, providers, set.off, timeout * 1000);
            rows.push({ vehicle: p.vehicle, to: p.to, channel: p.channel ?? '-', outcome: text, ok });
            if (result) await store.push.recordResult(p.ref, Math.floor(Date.now() / 1000), text, result.kind === 'invalid');
          }),
        );
      });
    } finally {
      await Promise.allSettled(set.providers.map((p) => p.close()));
    }
    rows.sort((a, b) => a.vehicle.localeCompare(b.vehicle) || a.to.localeCompare(b.to));
    process.stdout.write(formatTable(['VEHICLE', 'TO', 'CHANNEL', 'OUTCOME'], rows.map((r) => [r.vehicle, r.to, r.channel, r.outcome])));
    const failed = rows.filter((r) => !r.ok).length;
    if (failed > 0) {
      process.stderr.write(`vts: ${failed} of ${rows.length} test notifications did not go out\n`);
      process.exitCode = 1;
    }
  });
}
