/**
 * Shared by the alert tests: a real server that delivers to a local webhook receiver, the owner
 * `demo` with a webhook target, rules made through the HTTP API, and the webhook bodies heard.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerConfig } from '../../src/server/server.js';
import { httpHarness, type HttpHarness } from '../http/helpers.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { eventually } from '../mp/helpers.js';

export interface Hook {
  vehicleId: string;
  vehicleName: string;
  alertType: string;
  text: string;
  time: number;
  notificationId: number;
  event?: string;
  rule?: number;
}

export interface AlertHarness extends HttpHarness {
  receiver: HttpReceiver;
  /** The webhook bodies received so far, in order. */
  hooks(): Hook[];
  /** Waits until `n` webhook bodies have arrived (20 s at most). */
  waitHooks(n: number): Promise<Hook[]>;
  /** POST /api/alerts/<vehicle> as demo: the rule made (asserts 201). */
  addRule(body: Record<string, unknown>, vehicleId?: string): Promise<{ id: number } & Record<string, unknown>>;
}

export const json = (method: string, value: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

export async function alertHarness(ctx: TestContext, config: Partial<ServerConfig> = {}): Promise<AlertHarness> {
  const receiver = await HttpReceiver.start();
  ctx.after(() => receiver.close());
  const h = await httpHarness(ctx, {
    push: { webhookAllow: ['127.0.0.1'], limit: { burst: 100, perMinute: 600 }, retrySeconds: 1, timeoutSeconds: 3, pollMs: 100 },
    alerts: { pollMs: 200, scanSeconds: 1 },
    ...config,
  });
  await h.t.server.store.push.addTarget(h.ownerId, 'webhook', `${receiver.url}/hook`, '', 0);
  const hooks = (): Hook[] => receiver.requestsTo('/hook').map((r) => r.json<Hook>());
  return Object.assign(h, {
    receiver,
    hooks,
    async waitHooks(n: number) {
      return eventually(() => (hooks().length >= n ? hooks() : undefined), `${n} webhook calls`, 20_000);
    },
    async addRule(body: Record<string, unknown>, vehicleId = 'TESTCAR') {
      const r = await h.asDemo(`/api/alerts/${vehicleId}`, json('POST', body));
      assert.equal(r.status, 201, r.body);
      return JSON.parse(r.body) as { id: number } & Record<string, unknown>;
    },
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An `S` record: SOC, units K, charge state, ideal and estimated range. */
export const sRecord = (soc: number, state: string, range = 200) => `${soc},K,230,16,${state},standard,${range},${range - 10},16,0,0,0,0,0,0,0,0`;

/** A `D` record with the 12 V reading (field 15). */
export const dRecord = (volts: number, ignition = false, odometer?: number) =>
  [ignition ? 0xc0 : 0x40, 8, 4, 0, 0, 0, 0, odometer === undefined ? '' : Math.round(odometer * 10), 0, 0, 0, 0, 0, 0, volts, 0, 0, 0, 0, 0, 0].join(',');

/** An `L` record at the position (GPS locked), with the car's energy counter (field 11, kWh used since ignition). */
export const lRecord = (lat: number, lon: number, speed = 0, used = 0) => [lat, lon, 0, 100, 1, 1, speed, 0, 0, 0, used, 0, 0, 0, 0, 0, 0, 0, 0].join(',');

/** Sends the records one second apart (the server hears the last of each code per second). */
export async function sendSpaced(car: { send(code: string, data: string): void }, records: readonly [string, string][]): Promise<void> {
  for (const [code, data] of records) {
    car.send(code, data);
    await sleep(1100);
  }
}

/** The events of the webhook bodies so far. */
export const events = (h: AlertHarness) => h.hooks().map((x) => x.event ?? `(car) ${x.text}`);
