/**
 * The composition root of `vts serve`: opens the store, builds the hub, starts the listeners and
 * the housekeeping timers, and shuts everything down in order.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loginLimits, type LoginLimits } from './core/login-throttle.js';
import { DEFAULT_TIMEOUTS, type InactivityTimeouts } from './core/mp/inactivity.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimitOptions } from './core/rate-limit.js';
import { ApiSessions, DEFAULT_WEB_SESSION_TIMEOUT } from './hub/sessions/api-sessions.js';
import { clusterParts, type ClusterConfig, type ClusterParts } from './cluster/parts.js';
import { shareLimits } from './hub/cluster/shared-limits.js';
import { trustedProxyCheck } from './trusted-proxies.js';
import type { CommandService, CommandServiceOptions } from './hub/commands/command-service.js';
import type { EmbeddedBroker } from './mqtt/broker.js';
import type { MqttBridge } from './mqtt/bridge.js';
import { startMqtt, type MqttConfig, type MqttSide } from './mqtt/start.js';
import type { HttpContext } from './http/context.js';
import { CommandJobs } from './hub/commands/command-jobs.js';
import type { WebOptions } from './http/web.js';
import { startHttpListeners, type HttpListeners } from './http/listener.js';
import { startOfUtcDay } from './core/time.js';
import { isVtsError } from './errors.js';
import { describeListenError, withListenerGuard } from './listen.js';
import { listenerSpecs } from './listener-specs.js';
import { ConnectionCap, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from './connection-cap.js';
import { LoginGuard } from './auth/login-guard.js';
import { PasswordChecker } from './auth/password-checker.js';
import { Hub, type HubOptions } from './hub/hub.js';
import { DEFAULT_LIMITS, carShareOf, type MpContext, type MpLimits } from './mp/context.js';
import { startMpListener, type MpListener } from './mp/listener.js';
import { databaseFile, openStore, SQLITE_FILE_NAME } from './store/open.js';
import { logOutage, logStoreFailure } from './store/outage.js';
import { refuseNewDatabase } from './cluster/shared-database.js';
import type { Store } from './store/store.js';
import { SERVER_VERSION } from './version.js';
import { PushService } from './push/push-service.js';
import type { PushConfig } from './push/push-config.js';
import { ServerMetrics, METRICS_CONTENT_TYPE } from './metrics/prometheus.js';
import { NO_TELEMETRY } from './hub/telemetry.js';
import { workerMetrics } from './metrics/worker-metrics.js';
import { loadTlsPair, TlsCertificate } from './tls-certificate.js';
import { readinessCheck } from './readiness.js';

export interface ServerConfig {
  dataDir: string;
  /** A PostgreSQL URL (`postgres://…`): that database instead of the SQLite file of `dataDir`. */
  database?: string;
  /** PostgreSQL: a statement not answered within this fails, its connection is replaced (ms; 0 = none). Default 30 s. */
  databaseTimeoutMs?: number;
  /** Address to bind; undefined = all interfaces. */
  bind?: string;
  mpPort: number;
  mpTlsPort: number;
  httpPort: number;
  httpsPort: number;
  tlsCert?: string;
  tlsKey?: string;
  /** MP inactivity; `welcomeMs` is the login timeout (default 10 s, not the core's 30 s). */
  timeouts?: Partial<InactivityTimeouts>;
  limits?: Partial<MpLimits>;
  /** Connections one address may hold at once over all listeners (0 = no cap). Default 256. */
  maxConnectionsPerAddress?: number;
  /** Time for a whole HTTP request, its headers included (ms). Default 30 s. */
  httpRequestTimeoutMs?: number;
  /** The login throttle of every secret check (src/core/login-throttle.ts); each rule replaces the default's. */
  loginLimits?: Partial<LoginLimits>;
  /** scrypt password checks that may run at once (default: the CPUs, at most 4). */
  passwordChecks?: number;
  /** Seconds car messages are kept as history (0 = off). Default 86400. */
  messageHistory?: number;
  /** Seconds notifications are kept as history (0 = off). Default 2592000. */
  notificationHistory?: number;
  /** Days of traffic accounting kept and reported by command 30. Default 90. */
  utilisationDays?: number;
  /** Inactivity sweep period (ms). Default 10 s. */
  sweepIntervalMs?: number;
  /** Housekeeping period (ms): expiry purge, traffic flush. Default 60 s. */
  housekeepingMs?: number;
  /** Write-behind delay of the store (ms). Default 100. */
  writeBehindMs?: number;
  /**
   * Car writes held in memory while the database is slow or away (default 100000): past it car
   * connections are read no further until it commits (`--hold-writes`).
   */
  holdWrites?: number;
  /** Session cookie name set by `GET /api/cookie`; `svcapisession` is always accepted too. */
  cookieName?: string;
  /** Idle seconds after which an API session ends (sliding). Default 180. */
  sessionTimeout?: number;
  /** Idle seconds after which a web (dashboard) session ends (sliding). Default 7 days. */
  webSessionTimeout?: number;
  /** The HTTP rate limiter (http-api-v2.md §1.1); `burst: 0` turns it off. */
  rateLimit?: Partial<RateLimitOptions>;
  /** Largest HTTP request body (bytes). Default 64 KiB. */
  httpBodyLimit?: number;
  /** The command service: queue length per vehicle, default and maximum timeout. */
  commands?: Partial<CommandServiceOptions>;
  /** Path segment of the custom command API `/api/<service>/cmd` (default `ovms`). */
  commandService?: string;
  /** The MQTT superuser that `/mqapi` reports (none by default). */
  mqttSuperuser?: string;
  /** The v3 (MQTT) side; none: no broker, no bridge. */
  mqtt?: MqttConfig;
  /** Which link carries commands when a vehicle is on both (default `v2`). */
  commandLink?: 'v2' | 'mqtt';
  /** The web dashboard: its build folder (default dist/web) and map tiles. */
  web?: Partial<WebOptions>;
  /** HTTP proxies and load balancers whose `X-Forwarded-For` is believed (`--trust-proxy`). */
  trustProxy?: string[];
  /** Membership of a cluster (`--cluster`); none: a single node, no Redis. */
  cluster?: ClusterConfig;
  /** Push notifications: the providers' settings, the rate limit, retries (src/push/). */
  push?: PushConfig;
  /** Serves `GET /metrics` to scrapes that bring this bearer token (`--metrics-token`); none: no metrics. */
  metricsToken?: string;
  /** A worker of `--workers`: `/metrics` answers the metrics of all workers (src/metrics/worker-metrics.ts). */
  metricsOfWorkers?: boolean;
  /** How often the TLS certificate files are checked for a change (ms; 0: only on SIGHUP). Default 5 s. */
  tlsWatchIntervalMs?: number;
}

export type { MqttConfig } from './mqtt/start.js';

export interface Ports {
  mp: number;
  mpTls: number | null;
  http: number | null;
  https: number | null;
  mqtt: number | null;
  mqtts: number | null;
  mqttWs: number | null;
}

export interface RunningServer {
  readonly ports: Ports;
  readonly hub: Hub;
  readonly store: Store;
  readonly mp: MpListener;
  readonly http: HttpListeners;
  readonly sessions: ApiSessions;
  /** Password checks: queue and cache (shared by the MP scheme-1 login, MQTT and the HTTP API). */
  readonly credentials: PasswordChecker;
  /** The login throttle of every secret check. */
  readonly guard: LoginGuard;
  readonly commands: CommandService;
  /** The cap on connections per address, shared by every listener. */
  readonly connections: ConnectionCap;
  /** The embedded MQTT broker, when it runs. */
  readonly broker: EmbeddedBroker | null;
  /** The MQTT bridge that runs now, when there is a broker (an external broker in a cluster: on one node). */
  readonly bridge: MqttBridge | null;
  /** Delivers push notifications from the store's outbox. */
  readonly push: PushService;
  /** The Prometheus metrics (with `metricsToken`), else null. */
  readonly metrics: ServerMetrics | null;
  /**
   * Loads `--tls-cert`/`--tls-key` again into every TLS listener (SIGHUP); false when the new pair
   * cannot be used (the listeners keep the old one, the log says why) or there is no TLS.
   */
  reloadTls(): boolean;
  /**
   * Answers pending commands (503, shutting down), stops accepting, closes connections, flushes
   * and closes the store.
   */
  close(): Promise<void>;
}

const PURGE_BATCH = 2500;


/** An MP connection must have logged in within this (ms): `--timeout-login`. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 10_000;
/** The web dashboard's map tiles, unless configured (`--map-tiles`, `--map-attribution`). */
export const DEFAULT_TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
export const DEFAULT_TILE_ATTRIBUTION = '© OpenStreetMap contributors';

export async function startServer(config: ServerConfig, log: Logger): Promise<RunningServer> {
  const tls = loadTlsPair({ cert: config.tlsCert, key: config.tlsKey });
  const certificate = tls && new TlsCertificate({ cert: config.tlsCert, key: config.tlsKey }, tls, log, { watchIntervalMs: config.tlsWatchIntervalMs });
  const metrics = config.metricsToken ? new ServerMetrics() : null;
  const startedAt = Date.now();
  const databaseTimeoutMs = config.databaseTimeoutMs ?? 30_000;
  // a cluster node about to create a new SQLite database while others run is refused first
  if (config.cluster && !config.database && !existsSync(join(config.dataDir, SQLITE_FILE_NAME))) {
    await refuseNewDatabase(config.cluster, databaseFile(config.dataDir), () => existsSync(join(config.dataDir, SQLITE_FILE_NAME)), log);
  }
  const store = await openStore(config.dataDir, {
    database: config.database,
    writeBehindMs: config.writeBehindMs ?? 100,
    databaseTimeoutMs,
    // an outage is one line when it begins and one when it ends, not one per failed write: its
    // retries (and the hold of the writes past the scheduled ones) are logged at debug only
    onBackgroundError: (err: unknown) => logStoreFailure(log, 'error', err, {}, 'store: background write failed'),
    onOutage: (event) => logOutage(log, event),
    onResumed: (seconds: number) => log.info({ seconds: Math.round(seconds) }, 'store: the held writes are committed and passed on'),
    maxHeldWrites: config.holdWrites,
    onCommit: metrics ? (entries, seconds) => metrics.storeCommit(entries, seconds) : undefined,
    onCreated: (file) => log.info({ file }, 'created a new database'),
  });
  const listeners = listenerSpecs(config, tls !== undefined);
  const push = new PushService(store, config.push ?? {}, log, { dataDir: config.dataDir, database: config.database, databaseTimeoutMs, claimer: config.cluster?.nodeId ?? hostname() });
  const hubOptions: HubOptions = {
    serverVersion: SERVER_VERSION,
    messageHistorySeconds: config.messageHistory ?? 86400,
    notificationHistorySeconds: config.notificationHistory ?? 2592000,
    utilisationDays: config.utilisationDays ?? 90,
    commands: config.commands,
    commandLink: config.commandLink,
    notifier: push,
    telemetry: metrics ?? NO_TELEMETRY,
  };
  let parts: ClusterParts;
  try {
    parts = clusterParts(config.cluster, log, config.cluster ? await store.databaseId() : undefined);
  } catch (err) {
    await store.close();
    throw err;
  }
  const hub = new Hub(store, log, hubOptions, parts.cluster);
  try {
    await parts.cluster.start(hub.inbox);
  } catch (err) {
    await store.close();
    throw err;
  }
  const credentials = new PasswordChecker({ concurrency: config.passwordChecks });
  const guard = new LoginGuard(loginLimits(config.loginLimits), hub.now);
  const rateLimiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...config.rateLimit });
  // a cluster counts failed logins and requests across its nodes
  const stopSharing = shareLimits(parts.cluster, guard, rateLimiter, () => hub.seconds());
  metrics?.attach({
    connections: () => hub.links.connectionCounts(),
    outbox: () => store.push.countOpen(),
    logins: () => ({ failures: guard.failures, throttled: guard.throttled }),
  });
  /** `ok` once every listener is up; why not before and while shutting down. */
  let listenerState = 'failed: starting';
  let connectionIds = 0;
  const ctx: MpContext = {
    hub,
    store,
    log,
    guard,
    timeouts: { ...DEFAULT_TIMEOUTS, welcomeMs: DEFAULT_LOGIN_TIMEOUT_MS, ...config.timeouts },
    limits: {
      ...DEFAULT_LIMITS,
      ...(config.holdWrites === undefined ? {} : { maxCarMessagesPerCommit: carShareOf(config.holdWrites) }),
      ...config.limits,
    },
    credentials,
    nextConnectionId: () => ++connectionIds,
  };

  const sessions = new ApiSessions(hub, parts.sessions, {
    apiMs: (config.sessionTimeout ?? 180) * 1000,
    webMs: (config.webSessionTimeout ?? DEFAULT_WEB_SESSION_TIMEOUT) * 1000,
  });
  const commands: CommandService = hub.commands;
  const httpCtx: HttpContext = {
    commands,
    jobs: new CommandJobs(parts.jobs, hub.commands.options.maxTimeoutMs * (hub.commands.options.maxQueue + 1), Date.now, (err) => log.error({ err }, 'storing a command job failed')),
    commandService: config.commandService ?? 'ovms',
    mqttSuperuser: config.mqttSuperuser || undefined,
    hub,
    store,
    sessions,
    log,
    credentials,
    guard,
    rateLimiter,
    cookieNames: [...new Set([config.cookieName ?? 'svcapisession', 'svcapisession'])],
    bodyLimit: config.httpBodyLimit ?? 64 * 1024,
    trustProxy: config.trustProxy ?? [],
    liveStreams: new Set(),
    ops: {
      version: SERVER_VERSION,
      startedAt,
      readiness: readinessCheck({ store, cluster: parts.cluster, listeners: () => listenerState, log }),
      metrics:
        metrics && config.metricsToken
          ? { token: config.metricsToken, contentType: METRICS_CONTENT_TYPE, render: config.metricsOfWorkers ? workerMetrics(metrics.registry, log) : () => metrics.render() }
          : null,
    },
    web: {
      dir: config.web?.dir,
      tileUrl: config.web?.tileUrl ?? DEFAULT_TILE_URL,
      tileAttribution: config.web?.tileAttribution ?? DEFAULT_TILE_ATTRIBUTION,
    },
  };

  // every listener (MP, HTTP, MQTT) counts its connections in one cap per address
  const connections = new ConnectionCap(
    config.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    log,
    Date.now,
    undefined,
    trustedProxyCheck(config.trustProxy ?? []),
  );
  // every listener: the connection cap; the TLS ones also get each new certificate (SIGHUP)
  const capped = <T>(start: () => Promise<T>): Promise<T> =>
    withListenerGuard((server) => {
      connections.guard(server);
      certificate?.adopt(server);
    }, start);
  let mp: MpListener;
  let http: HttpListeners;
  try {
    mp = await capped(() =>
      startMpListener(ctx, {
        host: config.bind,
        port: config.mpPort,
        tlsPort: tls ? config.mpTlsPort : null,
        tls,
        sweepIntervalMs: config.sweepIntervalMs ?? 10_000,
      }),
    );
  } catch (err) {
    await parts.cluster.stop();
    await store.close();
    throw describeListenError(err, listeners.mp, listeners.all, config.bind);
  }
  try {
    http = await capped(() =>
      startHttpListeners(httpCtx, {
        host: config.bind,
        httpPort: config.httpPort,
        httpsPort: config.httpsPort,
        tls,
        requestTimeoutMs: config.httpRequestTimeoutMs,
      }),
    );
  } catch (err) {
    await mp.close();
    await parts.cluster.stop();
    await store.close();
    throw describeListenError(err, listeners.http, listeners.all, config.bind);
  }

  let mqtt: MqttSide;
  try {
    const brokerCluster = config.cluster && { id: config.cluster.nodeId, url: config.cluster.url, prefix: config.cluster.prefix };
    const mqttDeps = { hub, store, log, credentials, guard, loginTimeoutMs: ctx.timeouts.welcomeMs, bind: config.bind, superuser: config.mqttSuperuser || undefined, cluster: brokerCluster };
    mqtt = await capped(() => startMqtt(config.mqtt, mqttDeps, tls, listeners));
  } catch (err) {
    await Promise.all([mp.close(), http.close()]);
    await parts.cluster.stop();
    await store.close();
    throw err;
  }

  await push.start();
  certificate?.watch();
  certificate?.announce();
  listenerState = 'ok';
  const flushTraffic = async (): Promise<void> => {
    const now = hub.seconds();
    for (const peer of hub.peers()) hub.traffic.collect(peer, now);
    const deltas = hub.traffic.drain();
    if (deltas.length > 0) store.addUtilisation(deltas);
  };
  let housekeepingRunning = false;
  const housekeeping = async (): Promise<void> => {
    if (housekeepingRunning) return;
    housekeepingRunning = true;
    try {
      await flushTraffic();
      const now = hub.seconds();
      // bounded batches, yielding between them so that traffic is never blocked for long
      for (let k = 0; k < 40; k++) {
        const n = await store.purgeExpiredHistorical(now, PURGE_BATCH);
        if (n < PURGE_BATCH) break;
        await new Promise((r) => setImmediate(r));
      }
      await store.purgeUtilisation(startOfUtcDay(now) - (hubOptions.utilisationDays - 1) * 86400);
      await push.housekeeping(now, hubOptions.notificationHistorySeconds);
      guard.sweep();
      httpCtx.rateLimiter.tick(now);
    } catch (err) {
      // in a database outage it fails each time: the outage has its line (src/store/outage.ts)
      logStoreFailure(log, 'error', err, {}, 'housekeeping failed');
    } finally {
      housekeepingRunning = false;
    }
  };
  const timer = setInterval(() => void housekeeping(), config.housekeepingMs ?? 60_000);
  timer.unref();
  const sessionTimer = setInterval(
    // while a cluster's Redis is away the cluster has said so: no warning every few seconds
    () => sessions.sweep().catch((err: unknown) => (isVtsError(err, 'VTS_ERR_CLUSTER') ? log.debug({ err }, 'API session sweep failed') : log.warn({ err }, 'API session sweep failed'))),
    Math.min(10_000, sessions.shortestTimeoutMs / 2),
  );
  sessionTimer.unref();

  let closing: Promise<void> | undefined;
  return {
    ports: {
      mp: mp.port,
      mpTls: mp.tlsPort,
      http: http.http,
      https: http.https,
      mqtt: mqtt.broker?.ports.mqtt ?? null,
      mqtts: mqtt.broker?.ports.mqtts ?? null,
      mqttWs: mqtt.broker?.ports.mqttWs ?? null,
    },
    hub,
    store,
    mp,
    http,
    sessions,
    credentials,
    guard,
    commands,
    connections,
    broker: mqtt.broker,
    get bridge() {
      return mqtt.bridge();
    },
    push,
    metrics,
    reloadTls: () => certificate?.reload('SIGHUP') ?? false,
    close() {
      closing ??= (async () => {
        listenerState = 'failed: shutting down';
        certificate?.stop();
        clearInterval(timer);
        clearInterval(sessionTimer);
        // first: whoever waits for a command (HTTP request, async job) gets its 503 now, not
        // when the vehicle would have answered
        await commands.shutdown();
        await new Promise((r) => setImmediate(r)); // the answers are written before the listeners close
        await mqtt.close();
        await Promise.all([mp.close(), http.close(), push.stop()]);
        // what this node held leaves the cluster at once (not when its lease runs out)
        stopSharing();
        await parts.cluster.stop();
        await flushTraffic();
        await store.close();
      })();
      return closing;
    },
  };
}
