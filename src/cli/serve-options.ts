/** The options of `vts serve`: each with its parser, default and help text. */
import type { Command } from 'commander';
import { addConfigOption, parseBucket, parseCount, parseCountIn, parseLogLevel, parsePort } from '../util/config.js';
import { DEFAULT_LOGIN_LIMITS, type BucketRule } from '../core/login-throttle.js';
import { defaultCheckConcurrency } from '../auth/password-checker.js';
import { isTopicLevel } from '../core/mqtt/topics.js';
import { addStoreOptions } from './shared-options.js';
import { addPushDeliveryOptions, addPushProviderOptions, parseHttpUrl, type PushDeliveryOptions } from './push-options.js';
import { DEFAULT_ABRP_URL } from '../abrp/abrp-service.js';
import { LOG_FORMATS, type LogFormat } from '../util/log.js';
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from '../server/connection-cap.js';
import { DEFAULT_MAX_HELD_WRITES } from '../store/write-behind.js';
import { DEFAULT_WEB_SESSION_TIMEOUT } from '../hub/sessions/api-sessions.js';
import { DEFAULT_LOGIN_TIMEOUT_MS, DEFAULT_TILE_ATTRIBUTION, DEFAULT_TILE_URL, type MqttConfig } from '../server/server.js';
import { parseRedisUrl } from '../cluster/redis-connect.js';
import { parseTrustedProxies } from '../server/trusted-proxies.js';
import { parseNodeId, parseWorkers } from './workers.js';
import { REGISTRATION_MODES, type RegistrationMode } from '../auth/signup.js';

export interface ServeOptions extends PushDeliveryOptions {
  dataDir: string;
  database?: string;
  databaseTimeout: number;
  bind?: string;
  mpPort: number;
  mpTlsPort: number;
  httpPort: number;
  httpsPort: number;
  tlsCert?: string;
  tlsKey?: string;
  logLevel: string;
  logFormat?: LogFormat;
  metricsToken?: string;
  messageHistory: number;
  sessions: 'on' | 'off';
  notificationHistory: number;
  auditRetention: number;
  timeoutApp: number;
  timeoutBatch: number;
  timeoutCar: number;
  timeoutLogin: number;
  maxConnectionsPerAddress: number;
  holdWrites: number;
  cookieName: string;
  sessionTimeout: number;
  webSessionTimeout: number;
  rateLimitBurst: number;
  rateLimitPerMinute: number;
  rateLimitMax: number;
  rateLimitDelay: number;
  loginLimitPair: BucketRule;
  loginLimitAddress: BucketRule;
  loginLimitAccount: BucketRule;
  passwordChecks: number;
  commandTimeout: number;
  commandTimeoutMax: number;
  commandQueue: number;
  commandService: string;
  mqttSuperuser?: string;
  mqttPort: number | 'off';
  mqttsPort: number | 'off';
  mqttWsPort: number | 'off';
  mqttUrl?: string;
  mqttClientId: string;
  mqttEvents: NonNullable<MqttConfig['events']>;
  mqttMirror: 'on' | 'off';
  haDiscovery: 'on' | 'off';
  haDiscoveryPrefix: string;
  haResync: number;
  publicUrl?: string;
  commandLink: 'v2' | 'mqtt';
  mapTiles: string;
  mapAttribution: string;
  cluster?: string;
  nodeId?: string;
  clusterPrefix: string;
  clusterHeartbeat: number;
  clusterRepair: number;
  workers?: number | 'auto';
  trustProxy?: string[];
  abrpApiKey?: string;
  abrpUrl: string;
  abrpTokenKey?: string;
  registration: RegistrationMode;
}

/** Seconds, fractions allowed (0.5), at most a day; 0 = none. */
function parseSecondsOrZero(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || !(n >= 0 && n <= 86400)) throw new Error(`not a number of seconds from 0 to 86400: ${value}`);
  return n;
}

/** A port, or `off` (commander would turn a parser's null into ''). */
function parsePortOrOff(value: string): number | 'off' {
  return value.trim().toLowerCase() === 'off' ? 'off' : parsePort(value);
}

function parseChoice<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value)) throw new Error(`must be one of ${choices.join(', ')}`);
    return value as T;
  };
}

/** A number of seconds from `min` to `max`, fractions allowed (`0.5`). */
function parseSecondsIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value.trim());
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || n < min || n > max) throw new Error(`not a number of seconds from ${min} to ${max}: ${value}`);
    return n;
  };
}

/** A tile URL template: http(s) with {z}, {x} and {y}. */
function parseTileUrl(value: string): string {
  if (!/^https?:\/\/\S+$/.test(value) || !['{z}', '{x}', '{y}'].every((p) => value.includes(p))) {
    throw new Error(`not a tile URL template with {z}, {x} and {y}: ${value}`);
  }
  return value;
}

/** The bridge's v3 client id: one topic level of letters, digits, `-`, `_`, `.`. */
function parseClientId(value: string): string {
  if (!isTopicLevel(value) || !/^[A-Za-z0-9_.-]{1,64}$/.test(value)) throw new Error(`not a client id: ${value}`);
  return value;
}

/** An MQTT topic prefix of one or more levels (no wildcards, no empty level). */
function parseTopicPrefix(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}(\/[A-Za-z0-9_.-]{1,64}){0,3}$/.test(value)) throw new Error(`not a topic prefix (letters, digits, - _ . and /): ${value}`);
  // under ovms/ a user named like the prefix's second level could publish there
  if (value.split('/')[0] === 'ovms') throw new Error(`the discovery prefix may not be under ovms/ (the vehicles' topics): ${value}`);
  return value;
}

/** The dashboard's public address: an http(s) URL. */
function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`not a URL (write it with https:// or http://): ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) URL (write it with https:// or http://): ${value}`);
  return value.replace(/\/+$/, '');
}

/** A cookie name as RFC 6265 allows it (a token). */
function parseCookieName(value: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/.test(value)) throw new Error(`not a cookie name: ${value}`);
  return value;
}

/** A path segment for the custom command API: letters, digits, `_`, `-`, `.`. */
function parseServiceName(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,32}$/.test(value)) throw new Error(`not a service name: ${value}`);
  return value;
}

/** Adds the options of `vts serve` to `cmd`. */
export function addServeOptions(cmd: Command): void {
  addStoreOptions(cmd);
  addConfigOption(cmd, '--database-timeout <seconds>', 'PostgreSQL: a statement not answered within this fails and a silent connection is replaced by a new one (0 = wait for ever)', {
    default: 30,
    parse: parseSecondsOrZero,
  });
  addConfigOption(cmd, '--bind <address>', 'address to listen on (default: all interfaces)');
  addConfigOption(cmd, '--mp-port <port>', 'MP port (TCP and WebSocket); 0 = any free port', { default: 6867, parse: parsePort });
  addConfigOption(cmd, '--mp-tls-port <port>', 'MP over TLS port (needs --tls-cert/--tls-key)', { default: 6870, parse: parsePort });
  addConfigOption(cmd, '--http-port <port>', 'HTTP API port', { default: 6868, parse: parsePort });
  addConfigOption(cmd, '--https-port <port>', 'HTTPS API port (needs --tls-cert/--tls-key)', { default: 6869, parse: parsePort });
  addConfigOption(cmd, '--tls-cert <file>', 'PEM certificate (chain) for the TLS listeners');
  addConfigOption(cmd, '--tls-key <file>', 'PEM private key for the TLS listeners');
  addConfigOption(cmd, '--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', {
    default: 'info',
    parse: parseLogLevel,
  });
  addConfigOption(cmd, '--log-format <format>', 'json (one JSON object per line) or pretty (one readable line); default: pretty on a terminal, else json', {
    parse: parseChoice(LOG_FORMATS),
  });
  addConfigOption(cmd, '--metrics-token <token>', 'serve Prometheus metrics at GET /metrics to scrapes with "Authorization: Bearer <token>" (default: no /metrics); better given as VTS_METRICS_TOKEN than on the command line');
  addConfigOption(cmd, '--message-history <seconds>', 'keep every car message as history this long (0 = off; drives and charges are kept apart from it)', {
    default: 2592000,
    parse: parseCount,
  });
  addConfigOption(cmd, '--sessions <mode>', 'on: compute drives and charges from the car data as it comes; off: do not (vts sessions rebuild computes them later)', {
    default: 'on',
    parse: parseChoice(['on', 'off'] as const),
  });
  addConfigOption(cmd, '--notification-history <seconds>', 'keep notifications as history this long (0 = off)', {
    default: 2592000,
    parse: parseCount,
  });
  addConfigOption(cmd, '--audit-retention <days>', "keep the audit log of account actions this many days (the operator's page shows it)", {
    default: 365,
    parse: parseCount,
  });
  addConfigOption(cmd, '--timeout-app <seconds>', 'close an MP app after this much silence', { default: 1200, parse: parseCount });
  addConfigOption(cmd, '--timeout-batch <seconds>', 'close an MP batch client after this much silence', {
    default: 300,
    parse: parseCount,
  });
  addConfigOption(cmd, '--timeout-car <seconds>', 'close a car after this much silence (pinged before)', {
    default: 960,
    parse: parseCount,
  });
  addConfigOption(cmd, '--timeout-login <seconds>', 'close an MP connection that has not sent its login after this long (the server may take up to 60 s to answer one that has)', {
    default: DEFAULT_LOGIN_TIMEOUT_MS / 1000,
    parse: parseCountIn(1, 3600),
  });
  addConfigOption(cmd, '--max-connections-per-address <n>', 'connections one client address may hold at once, over all listeners (0 = no limit)', {
    default: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    parse: parseCount,
  });
  addConfigOption(cmd, '--hold-writes <n>', 'car writes held in memory while the database is slow or does not answer; past it cars are read no further until it commits (each car: a quarter, at most 4096 per commit)', {
    default: DEFAULT_MAX_HELD_WRITES,
    parse: parseCountIn(1, 100_000_000),
  });
  addConfigOption(cmd, '--cookie-name <name>', 'session cookie set by GET /api/cookie (svcapisession is always accepted)', {
    default: 'svcapisession',
    parse: parseCookieName,
  });
  addConfigOption(cmd, '--session-timeout <seconds>', 'end an API session after this much idle time', {
    default: 180,
    parse: parseCount,
  });
  addConfigOption(cmd, '--web-session-timeout <seconds>', 'end a web dashboard session (POST /api/session) after this much idle time', {
    default: DEFAULT_WEB_SESSION_TIMEOUT,
    parse: parseCountIn(1, 366 * 86_400),
  });
  addConfigOption(cmd, '--rate-limit-burst <n>', 'HTTP requests a new client address may make at once (0 = no rate limit)', {
    default: 120,
    parse: parseCount,
  });
  addConfigOption(cmd, '--rate-limit-per-minute <n>', 'HTTP requests added to an address\'s quota every minute', {
    default: 60,
    parse: parseCount,
  });
  addConfigOption(cmd, '--rate-limit-max <n>', 'ceiling of an address\'s HTTP request quota', { default: 240, parse: parseCount });
  addConfigOption(cmd, '--rate-limit-delay <seconds>', 'hold a refused HTTP request this long before its 429', {
    default: 20,
    parse: parseCount,
  });
  const bucketText = (b: BucketRule) => `${b.burst}/${b.perMinute}`;
  addConfigOption(cmd, '--login-limit-pair <burst/min>', 'secret checks one address may make for one user or vehicle: at once/per minute', {
    default: DEFAULT_LOGIN_LIMITS.pair,
    defaultText: bucketText(DEFAULT_LOGIN_LIMITS.pair),
    parse: parseBucket,
  });
  addConfigOption(cmd, '--login-limit-address <burst/min>', 'secret checks one address may make for all accounts: at once/per minute', {
    default: DEFAULT_LOGIN_LIMITS.address,
    defaultText: bucketText(DEFAULT_LOGIN_LIMITS.address),
    parse: parseBucket,
  });
  addConfigOption(cmd, '--login-limit-account <burst/min>', 'secret checks of one user or vehicle from all addresses: at once/per minute', {
    default: DEFAULT_LOGIN_LIMITS.account,
    defaultText: bucketText(DEFAULT_LOGIN_LIMITS.account),
    parse: parseBucket,
  });
  addConfigOption(cmd, '--password-checks <n>', 'scrypt password checks that may run at once (the rest wait in a queue)', {
    default: defaultCheckConcurrency(),
    parse: parseCountIn(1, 64),
  });
  addConfigOption(cmd, '--command-timeout <seconds>', 'default time a remote command may take', { default: 30, parse: parseCount });
  addConfigOption(cmd, '--command-timeout-max <seconds>', 'longest timeout a caller may ask for', { default: 300, parse: parseCount });
  addConfigOption(cmd, '--command-queue <n>', 'remote commands that may wait per vehicle (more are refused)', {
    default: 10,
    parse: parseCount,
  });
  addConfigOption(cmd, '--command-service <name>', 'path segment of the custom command API /api/<name>/cmd', {
    default: 'ovms',
    parse: parseServiceName,
  });
  addConfigOption(cmd, '--mqtt-superuser <name>', 'MQTT user with access to every topic (embedded broker, /mqapi/superuser, /mqapi/acl)');
  addConfigOption(cmd, '--mqtt-port <port>', 'embedded MQTT broker port; 0 = any free port, off = no broker', {
    default: 1883,
    parse: parsePortOrOff,
  });
  addConfigOption(cmd, '--mqtts-port <port>', 'embedded MQTT broker over TLS (needs --tls-cert/--tls-key); off = none', {
    default: 8883,
    parse: parsePortOrOff,
  });
  addConfigOption(cmd, '--mqtt-ws-port <port>', 'embedded MQTT broker over WebSocket; off = none', { default: 'off', parse: parsePortOrOff });
  addConfigOption(cmd, '--mqtt-url <url>', 'use this external broker (mqtt://user:password@host:1883) instead of the embedded one; its user must be allowed to read and write ovms/#');
  addConfigOption(cmd, '--mqtt-client-id <id>', 'the client id vts uses towards v3 modules (client/<id>/active, …/command/…)', {
    default: 'vts',
    parse: parseClientId,
  });
  addConfigOption(cmd, '--mqtt-events <mode>', 'v3 module events: notify (P to apps and history), history, off', {
    default: 'notify',
    parse: parseChoice(['notify', 'history', 'off'] as const),
  });
  addConfigOption(cmd, '--mqtt-mirror <on|off>', "publish each v2 car's state on the embedded broker as v3 metric topics (ovms/<owner>/<vehicle>/metric/…)", {
    default: 'on',
    parse: parseChoice(['on', 'off'] as const),
  });
  addConfigOption(cmd, '--ha-discovery <on|off>', 'announce every vehicle to Home Assistant on the embedded broker (MQTT discovery)', {
    default: 'on',
    parse: parseChoice(['on', 'off'] as const),
  });
  addConfigOption(cmd, '--ha-discovery-prefix <prefix>', "Home Assistant's discovery prefix", { default: 'homeassistant', parse: parseTopicPrefix });
  addConfigOption(cmd, '--ha-resync <s>', 'how often the vehicle list is read again for the discovery (vehicles added, removed or given away by the CLI or another node)', {
    default: 60,
    parse: parseSecondsIn(0.1, 3600),
  });
  addConfigOption(cmd, '--public-url <url>', "the dashboard's address as users reach it (https://vts.example.org), for links to it (also in the account mails)", { parse: parsePublicUrl });
  addConfigOption(cmd, '--registration <mode>', 'sign-up on the dashboard and POST /api/account: off, open (anyone, after verifying the mail address) or invite (with a code of vts invite create); needs --smtp-url', {
    default: 'off',
    parse: parseChoice(REGISTRATION_MODES),
  });
  addConfigOption(cmd, '--map-tiles <url>', 'map tile URL template of the web dashboard ({z}/{x}/{y}, optional {s})', {
    default: DEFAULT_TILE_URL,
    parse: parseTileUrl,
  });
  addConfigOption(cmd, '--map-attribution <text>', 'attribution shown with the map tiles', { default: DEFAULT_TILE_ATTRIBUTION });
  addConfigOption(cmd, '--command-link <link>', 'link that carries commands when a vehicle is on both: v2 or mqtt', {
    default: 'v2',
    parse: parseChoice(['v2', 'mqtt'] as const),
  });
  addConfigOption(cmd, '--cluster <url>', 'join the cluster of this Redis (redis://host:6379): nodes share their state through it (they need one shared database)', {
    parse: parseRedisUrl,
  });
  addConfigOption(cmd, '--node-id <name>', "this node's name in the cluster (default: host name and process id)", { parse: parseNodeId });
  addConfigOption(cmd, '--cluster-prefix <text>', 'prefix of the cluster\'s Redis keys and channels (clusters sharing one Redis need their own)', {
    default: 'vts',
    parse: parseNodeId,
  });
  addConfigOption(cmd, '--cluster-heartbeat <s>', 'how often a node renews its lease in the cluster (gone after 5 of them) and checks that Redis answers (a connection silent for 2 is made again)', {
    default: 2,
    parse: parseSecondsIn(0.1, 60),
  });
  addConfigOption(cmd, '--cluster-repair <s>', "how often a node reads the other nodes' presence again and renews its car claims", {
    default: 30,
    parse: parseSecondsIn(1, 3600),
  });
  addConfigOption(cmd, '--trust-proxy <list>', 'HTTP proxies or load balancers (addresses, networks a.b.c.d/n) whose X-Forwarded-For names the client; not capped per address', {
    parse: parseTrustedProxies,
  });
  addConfigOption(cmd, '--workers <n>', 'with --cluster: run n worker nodes on this machine sharing the ports (auto = one per CPU)', {
    parse: parseWorkers,
  });
  addPushProviderOptions(cmd);
  addPushDeliveryOptions(cmd);
  addConfigOption(cmd, '--abrp-api-key <key>', "send the live telemetry of the vehicles their owners link to ABRP, with this ABRP (Iternio) API key (default: ABRP off); better given as VTS_ABRP_API_KEY than on the command line");
  addConfigOption(cmd, '--abrp-url <url>', "ABRP's telemetry API (telemetry goes to <url>/1/tlm/send)", { default: DEFAULT_ABRP_URL, parse: parseHttpUrl });
  addConfigOption(cmd, '--abrp-token-key <hex>', 'the key (64 hex digits, openssl rand -hex 32) that seals the owners\' ABRP tokens in the database; default: the file abrp-token.key in the data directory, made the first time (every node of a cluster needs the same key); better given as VTS_ABRP_TOKEN_KEY');
}
