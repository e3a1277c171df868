/** What `startServer` (src/server/server.ts) is given: the settings of `vts serve`, each with its default. */
import type { LoginLimits } from '../core/login-throttle.js';
import type { InactivityTimeouts } from '../core/mp/inactivity.js';
import type { RateLimitOptions } from '../core/rate-limit.js';
import type { ClusterConfig } from '../cluster/parts.js';
import type { CommandServiceOptions } from '../hub/commands/command-service.js';
import type { MqttConfig } from '../mqtt/start.js';
import type { WebOptions } from '../http/web.js';
import type { MpLimits } from '../mp/context.js';
import type { PushConfig } from '../push/push-config.js';
import type { AbrpConfig } from '../abrp/start.js';
import type { SignupConfig } from './signup-start.js';
import type { AlertServiceOptions } from '../alerts/alert-service.js';

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
  /** Seconds car messages are kept as history (0 = off). Default 2,592,000 (30 days). */
  messageHistory?: number;
  /** The hub's clock in epoch milliseconds (default Date.now): tests script days of car data with it. */
  clock?: () => number;
  /** Drives and charges computed from the car data (src/drives/); default on. */
  sessions?: boolean;
  /** Seconds notifications are kept as history (0 = off). Default 2592000. */
  notificationHistory?: number;
  /** Days the audit log of account actions is kept (`--audit-retention`). Default 365. */
  auditRetentionDays?: number;
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
  /** The HTTP rate limiter (docs/protocol/http-api-v2.md §1.1); `burst: 0` turns it off. */
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
  /** ABRP live telemetry (`--abrp-api-key`, `--abrp-url`, `--abrp-token-key`); no API key: nothing is sent. */
  abrp?: AbrpConfig;
  /** The alert engines' timing (src/alerts/alert-service.ts); the defaults serve (tests shorten them). */
  alerts?: AlertServiceOptions;
  /** Sign-up and recovery (`--registration`, `--public-url`; mail through `push.smtpUrl`). */
  signup?: SignupConfig;
  /** How often the TLS certificate files are checked for a change (ms; 0: only on SIGHUP). Default 5 s. */
  tlsWatchIntervalMs?: number;
}
