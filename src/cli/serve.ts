/** `vts serve`: runs the server until SIGTERM or SIGINT. */
import type { Command } from 'commander';
import { resolveOptions } from '../util/config.js';
import { pgTarget } from '../store/postgres/pg-errors.js';
import { createLogger } from '../util/log.js';
import { STRONG_TOKEN } from '../core/crypto/same-secret.js';
import { reportFdLimit } from '../server/fd-limit.js';
import { startServer } from '../server/server.js';
import { VtsError } from '../errors.js';
import { addServeOptions, type ServeOptions } from './serve-options.js';
import { checkMetricsToken, serverConfig } from './serve-config.js';
import { isPrimary, isWorker, reportListening, runWorkers, workerCount } from './workers.js';

/** Exit at the latest this long after SIGTERM/SIGINT, even if something hangs. */
const SHUTDOWN_DEADLINE_MS = 4500;

export function registerServe(program: Command): void {
  const cmd = program.command('serve').description('run the server (MP listeners, store, housekeeping)');
  addServeOptions(cmd);
  cmd.action(async () => {
    const o = resolveOptions<ServeOptions>(cmd);
    // an empty value (VTS_METRICS_TOKEN= in an environment file) means none, as for the other options
    if (o.metricsToken === '') o.metricsToken = undefined;
    checkMetricsToken(o.metricsToken);
    const workers = workerCount(o.workers);
    if (workers > 1 && !o.cluster) throw new VtsError('VTS_ERR_CONFIG', '--workers needs --cluster: the workers are nodes of one cluster (e.g. --cluster redis://127.0.0.1:6379)');
    if (workers > 1 && isPrimary()) return runWorkers(workers, createLogger(o.logLevel, 2, o.logFormat));
    const log = createLogger(o.logLevel, 2, o.logFormat);
    if (o.metricsToken && o.metricsToken.length < STRONG_TOKEN) {
      log.warn(`--metrics-token is shorter than ${STRONG_TOKEN} characters: a longer random one (openssl rand -hex 24) is harder to guess, and is served even from an address that sent wrong ones`);
    }
    const config = serverConfig(o, cmd);
    // handlers first: a signal that arrives during start-up or right after the listening line
    // must still stop the server gracefully
    let stopRequested: ((signal: string) => void) | null = null;
    const pendingSignals: string[] = [];
    const onSignal = (signal: string): void => {
      if (stopRequested) stopRequested(signal);
      else pendingSignals.push(signal);
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
    // SIGHUP loads the TLS certificate again (it would end the process by default)
    let reload = (): void => log.info('SIGHUP during start-up: the certificate just loaded is kept');
    process.on('SIGHUP', () => reload());

    const server = await startServer(config, log);
    reload = () => {
      if (!config.tlsCert) log.info('SIGHUP: no --tls-cert to load again');
      else server.reloadTls();
    };
    const { mp, mpTls, http, https, mqtt, mqtts, mqttWs } = server.ports;
    log.info(
      { ...(o.database ? { database: pgTarget(o.database).shown } : { dataDir: o.dataDir }), ports: server.ports, mqttBroker: server.bridge ? (o.mqttUrl ? 'external' : 'embedded') : 'off', ...(config.cluster ? { node: config.cluster.nodeId } : {}) },
      'vts listening',
    );
    const listening = { event: 'listening' as const, mp, mpTls, http, https, mqtt, mqtts, mqttWs };
    // a worker tells its primary, which says it once for all of them
    if (isWorker()) reportListening(listening);
    else {
      reportFdLimit(log);
      process.stdout.write(JSON.stringify(listening) + '\n');
    }

    const code = await new Promise<number>((resolve) => {
      stopRequested = (signal: string): void => {
        log.info({ signal }, 'shutting down');
        setTimeout(() => {
          log.error('shutdown took too long: exiting');
          process.exit(1);
        }, SHUTDOWN_DEADLINE_MS).unref();
        server.close().then(
          () => {
            log.info('stopped');
            resolve(0);
          },
          (err: unknown) => {
            log.error({ err }, 'error during shutdown');
            resolve(1);
          },
        );
      };
      const early = pendingSignals.shift();
      if (early) stopRequested(early);
    });
    // everything is closed and flushed: a timer left behind (the wait of a command that the
    // shutdown answered, which runs to the command's timeout) must not hold the process
    process.exit(code);
  });
}
