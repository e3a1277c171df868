/**
 * The composition root of `vts serve`: opens the store, builds the hub, starts the listeners and
 * the housekeeping timers, and shuts everything down in order.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loginLimits } from '../core/login-throttle.js';
import { DEFAULT_TIMEOUTS } from '../core/mp/inactivity.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from '../core/rate-limit.js';
import { ApiSessions, DEFAULT_WEB_SESSION_TIMEOUT } from '../hub/sessions/api-sessions.js';
import { clusterParts } from '../cluster/parts.js';
import { shareLimits } from '../hub/cluster/shared-limits.js';
import { trustedProxyCheck } from './trusted-proxies.js';
import type { CommandService } from '../hub/commands/command-service.js';
import type { EmbeddedBroker } from '../mqtt/broker.js';
import type { MqttBridge } from '../mqtt/bridge.js';
import { startMqtt, type MqttSide } from '../mqtt/start.js';
import type { HttpContext, MqttInfo, SignupContext } from '../http/context.js';
import { CommandJobs } from '../hub/commands/command-jobs.js';
import { startHttpListeners, type HttpListeners } from '../http/listener.js';
import { describeListenError, withListenerGuard } from '../util/listen.js';
import { listenerSpecs } from './listener-specs.js';
import { ConnectionCap, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from './connection-cap.js';
import { LoginGuard } from '../auth/login-guard.js';
import { PasswordChecker } from '../auth/password-checker.js';
import { Hub, type HubOptions } from '../hub/hub.js';
import { DEFAULT_LIMITS, carShareOf, type MpContext } from '../mp/context.js';
import { startMpListener, type MpListener } from '../mp/listener.js';
import { databaseFile, openStore, SQLITE_FILE_NAME } from '../store/open.js';
import { logOutage, logStoreFailure } from '../store/outage.js';
import { refuseNewDatabase } from '../cluster/shared-database.js';
import type { Store } from '../store/store.js';
import { SERVER_VERSION } from '../util/version.js';
import { PushService } from '../push/push-service.js';
import { SessionRecorder } from '../drives/session-recorder.js';
import { startAbrp } from '../abrp/start.js';
import { loadTokenKey } from '../abrp/token-key.js';
import { startAlerts } from '../alerts/start.js';
import type { AbrpService } from '../abrp/abrp-service.js';
import type { VehicleState } from '../mqtt/vehicle-state.js';
import { ServerMetrics, METRICS_CONTENT_TYPE } from '../metrics/prometheus.js';
import { AuditLog } from '../auth/audit-log.js';
import { IngestMeter, ServerAdminSide } from './admin-side.js';
import { NO_TELEMETRY } from '../hub/telemetry.js';
import { workerMetrics } from '../metrics/worker-metrics.js';
import { loadTlsPair, TlsCertificate, type TlsPair } from './tls-certificate.js';
import { readinessCheck } from '../hub/readiness.js';
import { CloseStack } from './close-stack.js';
import type { ServerConfig } from './server-config.js';
import { flushTraffic, startHousekeeping } from './housekeeping.js';
import { startSignup } from './signup-start.js';

export type { ServerConfig } from './server-config.js';
export type { MqttConfig } from '../mqtt/start.js';

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
  /** Every vehicle's state and its Home Assistant discovery on the embedded broker, when they run. */
  readonly vehicleState: VehicleState | null;
  /** Delivers push notifications from the store's outbox. */
  readonly push: PushService;
  /** Records drives and charges from the car data (null with `sessions: false`). */
  readonly recorder: SessionRecorder | null;
  /** ABRP live telemetry (sends only with `abrp.apiKey`). */
  readonly abrp: AbrpService;
  /** The Prometheus metrics (with `metricsToken`), else null. */
  readonly metrics: ServerMetrics | null;
  /** Sign-up and recovery (its background work: `signup.service.settled()`). */
  readonly signup: SignupContext;
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

/** An MP connection must have logged in within this (ms): `--timeout-login`. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 10_000;
/** The web dashboard's map tiles, unless configured (`--map-tiles`, `--map-attribution`). */
export const DEFAULT_TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
export const DEFAULT_TILE_ATTRIBUTION = '© OpenStreetMap contributors';

/**
 * Starts the server: each step that opens something pushes its closer on one stack, which a
 * failed step closes again (last first) before its error is thrown, and `close()` closes too.
 */
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
    // SQLite: the WAL is folded into the file by a worker thread, not inside a commit the event loop waits for
    checkpointEveryMs: 1000,
    onCommit: metrics ? (entries, seconds) => metrics.storeCommit(entries, seconds) : undefined,
    onCreated: (file) => log.info({ file }, 'created a new database'),
  });
  // from here on, what a step opens is closed again, last first, by a later step that fails and by close()
  const stack = new CloseStack();
  stack.push('the store', () => store.close());
  try {
    return await startOnStore(config, log, { store, stack, tls, certificate, metrics, startedAt, databaseTimeoutMs });
  } catch (err) {
    return stack.abandon(err, log);
  }
}

interface Opened {
  store: Store;
  stack: CloseStack;
  tls: TlsPair | undefined;
  certificate: TlsCertificate | undefined;
  metrics: ServerMetrics | null;
  startedAt: number;
  databaseTimeoutMs: number;
}

/** The steps after the store is open; what each opens goes on `stack` at once. */
async function startOnStore(config: ServerConfig, log: Logger, opened: Opened): Promise<RunningServer> {
  const { store, stack, tls, certificate, metrics, startedAt, databaseTimeoutMs } = opened;
  const listeners = listenerSpecs(config, tls !== undefined);
  const push = new PushService(store, config.push ?? {}, log, { dataDir: config.dataDir, database: config.database, databaseTimeoutMs, claimer: config.cluster?.nodeId ?? hostname() });
  // counts the car messages for the operator's page (the rate), passes everything on to the metrics
  const meter = new IngestMeter(metrics ?? NO_TELEMETRY);
  const hubOptions: HubOptions = {
    serverVersion: SERVER_VERSION,
    messageHistorySeconds: config.messageHistory ?? 2592000,
    notificationHistorySeconds: config.notificationHistory ?? 2592000,
    utilisationDays: config.utilisationDays ?? 90,
    commands: config.commands,
    commandLink: config.commandLink,
    notifier: push,
    telemetry: meter,
    ...(config.clock ? { now: config.clock } : {}),
  };
  const parts = clusterParts(config.cluster, log, config.cluster ? await store.databaseId() : undefined);
  const hub = new Hub(store, log, hubOptions, parts.cluster);
  // the traffic counted since the last housekeeping is written before the store closes
  stack.push('the traffic accounting', () => flushTraffic(hub, store));
  // drives and charges: closed after the listeners (no more records), before the store
  const recorder = config.sessions === false ? null : new SessionRecorder(store, log, () => hub.seconds());
  if (recorder) {
    const stop = hub.onCarData(recorder.observer());
    stack.push('the drives and charges', () => {
      stop();
      return recorder.close();
    });
  }
  // ABRP: closed after the listeners, before the store
  const abrp = startAbrp(config.abrp, { store, log, dataDir: config.dataDir, seconds: () => hub.seconds(), onCarData: (o) => hub.onCarData(o) });
  stack.push('ABRP', () => abrp.close());
  await parts.cluster.start(hub.inbox);
  // what this node held leaves the cluster at once (not when its lease runs out)
  stack.push('the cluster', () => parts.cluster.stop());
  // alerts: after the cluster (who holds which car), closed after the listeners, before the store
  const alerts = await startAlerts(hub, store, log, parts.cluster, recorder, config.alerts);
  stack.push('the alerts', () => alerts.close());
  const credentials = new PasswordChecker({ concurrency: config.passwordChecks });
  const guard = new LoginGuard(loginLimits(config.loginLimits), hub.now);
  const rateLimiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...config.rateLimit });
  // a cluster counts failed logins and requests across its nodes
  stack.push('the shared limits', shareLimits(parts.cluster, guard, rateLimiter, () => hub.seconds()));
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
  // a revoked share: the user's API v2 registrations of the vehicle end (src/hub/access/access-revocations.ts)
  hub.access.onRevoke((vehicleId, userId) => sessions.revoked(vehicleId, userId));
  const commands: CommandService = hub.commands;
  // sign-up and recovery: its mails in the background are done before the store closes
  const audit = new AuditLog(store, log, hub.now);
  const signup = startSignup(store, log, config.signup, config.push, () => hub.seconds(), audit);
  stack.push('sign-up and recovery', () => signup.service.close());
  let mqttInfo: MqttInfo | null = null;
  let sealKey: Buffer | undefined;
  const liveStreams = new Set<() => void>();
  const adminSide = new ServerAdminSide({ hub, store, cluster: parts.cluster, meter, log, version: SERVER_VERSION, startedAt, liveStreams: () => liveStreams.size });
  stack.push("the operator's figures", () => adminSide.close());
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
    audit,
    rateLimiter,
    cookieNames: [...new Set([config.cookieName ?? 'svcapisession', 'svcapisession'])],
    bodyLimit: config.httpBodyLimit ?? 64 * 1024,
    trustProxy: config.trustProxy ?? [],
    liveStreams,
    admin: adminSide,
    abrp: abrp.service,
    alerts,
    signup,
    ops: {
      version: SERVER_VERSION,
      startedAt,
      readiness: readinessCheck({ store, cluster: parts.cluster, listeners: () => listenerState, log }),
      metrics:
        metrics && config.metricsToken
          ? { token: config.metricsToken, contentType: METRICS_CONTENT_TYPE, render: config.metricsOfWorkers ? workerMetrics(metrics.registry, log) : () => metrics.render() }
          : null,
    },
    mqttInfo: () => mqttInfo,
    factors: {
      // the key of the ABRP tokens seals the TOTP secrets too: one key for the secrets vts reads back
      sealKey: () => (sealKey ??= loadTokenKey(config.abrp?.tokenKey, config.dataDir)),
      publicUrl: config.signup?.publicUrl ?? config.mqtt?.publicUrl,
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
  // the MP and HTTP listeners and the push delivery close together, after the MQTT side
  const listenersAndPush = stack.group('the MP and HTTP listeners and push');
  const mp = await capped(() =>
    startMpListener(ctx, {
      host: config.bind,
      port: config.mpPort,
      tlsPort: tls ? config.mpTlsPort : null,
      tls,
      sweepIntervalMs: config.sweepIntervalMs ?? 10_000,
    }),
  ).catch((err: unknown) => {
    throw describeListenError(err, listeners.mp, listeners.all, config.bind);
  });
  listenersAndPush.add('the MP listener', () => mp.close());
  const http = await capped(() =>
    startHttpListeners(httpCtx, {
      host: config.bind,
      httpPort: config.httpPort,
      httpsPort: config.httpsPort,
      tls,
      requestTimeoutMs: config.httpRequestTimeoutMs,
    }),
  ).catch((err: unknown) => {
    throw describeListenError(err, listeners.http, listeners.all, config.bind);
  });
  listenersAndPush.add('the HTTP listeners', () => http.close());

  const brokerCluster = config.cluster && { id: config.cluster.nodeId, url: config.cluster.url, prefix: config.cluster.prefix };
  const mqttDeps = {
    hub,
    store,
    log,
    credentials,
    guard,
    loginTimeoutMs: ctx.timeouts.welcomeMs,
    bind: config.bind,
    superuser: config.mqttSuperuser || undefined,
    cluster: brokerCluster,
    version: SERVER_VERSION,
  };
  const mqtt: MqttSide = await capped(() => startMqtt(config.mqtt, mqttDeps, tls, listeners));
  stack.push('the MQTT side', () => mqtt.close());
  if (mqtt.broker) {
    adminSide.attachBroker(mqtt.broker);
    const { ports } = mqtt.broker;
    mqttInfo = {
      ports: { mqtt: ports.mqtt, mqtts: ports.mqtts, ws: ports.mqttWs },
      mirror: config.mqtt?.mirror ?? true,
      haPrefix: config.mqtt?.haDiscoveryPrefix === undefined ? 'homeassistant' : config.mqtt.haDiscoveryPrefix,
    };
  }
  // first when closing: whoever waits for a command (HTTP request, async job) gets its 503 now,
  // not when the vehicle would have answered; the answers are written before the listeners close
  stack.push('the pending commands', async () => {
    await commands.shutdown();
    await new Promise((r) => setImmediate(r));
  });

  await push.start();
  listenersAndPush.add('push', () => push.stop());
  if (certificate) {
    certificate.watch();
    stack.push('the certificate watch', () => certificate.stop());
  }
  certificate?.announce();
  listenerState = 'ok';
  stack.push(
    'the housekeeping',
    startHousekeeping({
      hub,
      store,
      push,
      guard,
      rateLimiter,
      sessions,
      log,
      utilisationDays: hubOptions.utilisationDays,
      notificationHistorySeconds: hubOptions.notificationHistorySeconds,
      auditRetentionDays: config.auditRetentionDays ?? 365,
      intervalMs: config.housekeepingMs ?? 60_000,
    }),
  );

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
    vehicleState: mqtt.state,
    get bridge() {
      return mqtt.bridge();
    },
    push,
    recorder,
    abrp: abrp.service,
    metrics,
    signup,
    reloadTls: () => certificate?.reload('SIGHUP') ?? false,
    close() {
      closing ??= (() => {
        listenerState = 'failed: shutting down';
        // each failing part by name (the caller hears of the first one only): the rest still close
        return stack.close((name, err) => log.warn({ err }, `closing ${name} failed`));
      })();
      return closing;
    },
  };
}
