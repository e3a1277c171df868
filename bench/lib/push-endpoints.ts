/**
 * The push benchmark's Google and Apple: the tests' local FCM and APNs endpoints
 * (test/support/push/), run in a child process of their own, as the real services run elsewhere.
 * In the bench's own process they took the load generator's event loop (the JWT checks, TLS,
 * HTTP/2), and the ingest measured during a burst fell for the generator's sake, not the server's.
 *
 * The child runs at the lowest CPU priority (nice 19), and reports each request (the alert text
 * it carried, whether it was answered 200, its arrival as epoch milliseconds with sub-millisecond
 * precision) to the parent over IPC, a batch every 50 ms.
 *
 *   const ep = await startPushEndpoints(50);   // answering 50 ms late
 *   ep.onArrival = (text, ok, at) => …;        // at: performance.timeOrigin + performance.now()
 *   … ep.fcm.url, ep.apns.settings … ep.cpuSeconds() …
 *   await ep.close();
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ApnsSettings } from '../../src/push/providers/apns.js';
import { startApnsEndpoint, type ApnsRequest } from '../../test/support/push/apns-endpoint.js';
import { startFcmEndpoint, type FcmRequest } from '../../test/support/push/fcm-endpoint.js';
import { cpuSecondsOf } from './proc.js';

/** What the child says once it listens. */
interface Listening {
  t: 'listening';
  fcm: { serviceAccountFile: string; url: string };
  apns: { settings: ApnsSettings; url: string };
}

/** A batch of arrivals: [alert text (or null), answered 200, epoch ms]. */
interface ArrivalBatch {
  t: 'arrivals';
  list: [string | null, boolean, number][];
}

export interface PushEndpoints {
  readonly fcm: Listening['fcm'];
  readonly apns: Listening['apns'];
  /** Called for every request, in arrival order. */
  onArrival: (text: string | null, ok: boolean, at: number) => void;
  /** CPU seconds the endpoints' process has used. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/** Epoch milliseconds, precise below the millisecond, comparable across processes. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

const HERE = fileURLToPath(import.meta.url);
/** Arrivals are sent to the bench this often (ms): each message wakes the load generator's event loop. */
const REPORT_EVERY_MS = 50;

export async function startPushEndpoints(delayMs: number): Promise<PushEndpoints> {
  const child: ChildProcess = fork(HERE, ['--child', String(delayMs)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const listening = await new Promise<Listening>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the push endpoints ended (exit code ${code}) before they listened`)));
    child.once('message', (m) => resolve(m as Listening));
  });
  child.removeAllListeners('exit');
  // they stand for Apple's and Google's servers, which take none of the server machine's CPU:
  // at the lowest priority, they take what the server and the generator leave
  setPriority(child.pid!, 19);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ep: PushEndpoints = {
    fcm: listening.fcm,
    apns: listening.apns,
    onArrival: () => undefined,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
  child.on('message', (m) => {
    for (const [text, ok, at] of (m as ArrivalBatch).list) ep.onArrival(text, ok, at);
  });
  return ep;
}

/** The child: both endpoints, their requests reported in batches. */
async function runChild(delayMs: number): Promise<void> {
  const [fcm, apns] = await Promise.all([startFcmEndpoint({ delayMs }), startApnsEndpoint({ delayMs })]);
  let pending: ArrivalBatch['list'] = [];
  let timer: NodeJS.Timeout | undefined;
  const report = (text: unknown, ok: boolean): void => {
    pending.push([typeof text === 'string' ? text : null, ok, epochMs()]);
    timer ??= setTimeout(() => {
      timer = undefined;
      const list = pending;
      pending = [];
      process.send!({ t: 'arrivals', list } satisfies ArrivalBatch);
    }, REPORT_EVERY_MS);
  };
  const follow = <T>(e: { readonly requests: readonly T[]; waitForRequests(count: number): Promise<void> }, on: (r: T) => void): void => {
    let seen = 0;
    const next = (): void => {
      void e.waitForRequests(seen + 1).then(() => {
        while (seen < e.requests.length) on(e.requests[seen++]!);
        next();
      });
    };
    next();
  };
  follow<FcmRequest>(fcm, (r) =>
    report((r.payload as { message?: { data?: { message?: unknown } } } | undefined)?.message?.data?.message, r.problem === undefined && r.status === 200),
  );
  follow<ApnsRequest>(apns, (r) => report((r.payload as { aps?: { alert?: unknown } } | undefined)?.aps?.alert, r.problem === undefined && r.status === 200));
  process.once('SIGTERM', () => {
    void Promise.all([fcm.close(), apns.close()]).finally(() => process.exit(0));
  });
  process.send!({ t: 'listening', fcm: { serviceAccountFile: fcm.serviceAccountFile, url: fcm.url }, apns: { settings: apns.settings, url: apns.url } } satisfies Listening);
}

if (process.argv[2] === '--child') void runChild(Number(process.argv[3]));
