/** `vts serve`'s options as the server's settings (src/server/server-config.ts). */
import type { Command } from 'commander';
import { VtsError } from '../errors.js';
import type { ServerConfig } from '../server/server.js';
import { pushConfig } from './push-options.js';
import type { ServeOptions } from './serve-options.js';
import { isWorker, nodeName } from './workers.js';

const portOrNull = (p: number | 'off'): number | null => (p === 'off' ? null : p);

/**
 * The metrics token is checked here, not by an option parser: commander's message about a value it
 * refuses quotes the value, and this one is a secret.
 */
export function checkMetricsToken(token: string | undefined): void {
  if (token !== undefined && !/^[\x21-\x7e]{1,256}$/.test(token)) {
    throw new VtsError('VTS_ERR_CONFIG', '--metrics-token (VTS_METRICS_TOKEN) must be 1-256 printable characters without spaces (it goes into an Authorization header)');
  }
}

/** The server's settings from the options of `cmd` (`o`, resolved). */
export function serverConfig(o: ServeOptions, cmd: Command): ServerConfig {
  return {
    dataDir: o.dataDir,
    database: o.database,
    databaseTimeoutMs: o.databaseTimeout * 1000,
    bind: o.bind,
    mpPort: o.mpPort,
    mpTlsPort: o.mpTlsPort,
    httpPort: o.httpPort,
    httpsPort: o.httpsPort,
    tlsCert: o.tlsCert,
    tlsKey: o.tlsKey,
    messageHistory: o.messageHistory,
    sessions: o.sessions !== 'off',
    notificationHistory: o.notificationHistory,
    auditRetentionDays: o.auditRetention,
    timeouts: {
      appMs: o.timeoutApp * 1000,
      batchMs: o.timeoutBatch * 1000,
      carMs: o.timeoutCar * 1000,
      welcomeMs: o.timeoutLogin * 1000,
    },
    maxConnectionsPerAddress: o.maxConnectionsPerAddress,
    holdWrites: o.holdWrites,
    cookieName: o.cookieName,
    sessionTimeout: o.sessionTimeout,
    webSessionTimeout: o.webSessionTimeout,
    rateLimit: {
      burst: o.rateLimitBurst,
      perMinute: o.rateLimitPerMinute,
      max: o.rateLimitMax,
      delaySeconds: o.rateLimitDelay,
    },
    loginLimits: { pair: o.loginLimitPair, address: o.loginLimitAddress, account: o.loginLimitAccount },
    passwordChecks: o.passwordChecks,
    commands: {
      defaultTimeoutMs: Math.max(1, o.commandTimeout) * 1000,
      maxTimeoutMs: Math.max(1, o.commandTimeoutMax, o.commandTimeout) * 1000,
      maxQueue: o.commandQueue,
    },
    commandService: o.commandService,
    mqttSuperuser: o.mqttSuperuser,
    commandLink: o.commandLink,
    web: { tileUrl: o.mapTiles, tileAttribution: o.mapAttribution },
    trustProxy: o.trustProxy,
    push: pushConfig(o),
    metricsToken: o.metricsToken,
    // an empty value (VTS_ABRP_API_KEY= in an environment file) means none
    abrp: { apiKey: o.abrpApiKey || undefined, url: o.abrpUrl, tokenKey: o.abrpTokenKey || undefined },
    metricsOfWorkers: isWorker(),
    signup: { registration: o.registration, publicUrl: o.publicUrl },
    cluster: o.cluster
      ? { url: o.cluster, nodeId: nodeName(o.nodeId), prefix: o.clusterPrefix, heartbeatMs: Math.round(o.clusterHeartbeat * 1000), repairMs: Math.round(o.clusterRepair * 1000) }
      : undefined,
    mqtt: {
      port: portOrNull(o.mqttPort),
      tlsPort: portOrNull(o.mqttsPort),
      wsPort: portOrNull(o.mqttWsPort),
      // the default port may be held by a broker of the machine: then vts goes on without its own
      portOptional: cmd.getOptionValueSource('mqttPort') === 'default',
      tlsPortOptional: cmd.getOptionValueSource('mqttsPort') === 'default',
      url: o.mqttUrl || undefined,
      clientId: o.mqttClientId,
      events: o.mqttEvents,
      mirror: o.mqttMirror === 'on',
      haDiscoveryPrefix: o.haDiscovery === 'on' ? o.haDiscoveryPrefix : null,
      vehicleResyncMs: Math.round(o.haResync * 1000),
      publicUrl: o.publicUrl,
    },
  };
}
