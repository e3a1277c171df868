/**
 * `vts module`: runs one or many emulated OVMS v3 vehicle modules until SIGTERM or SIGINT (then
 * stops them and exits 0). Each module connects to a vts (or any OVMS v2) server as a car, and/or
 * to an MQTT broker as a v3 module, and answers commands; see src/module/module.ts. Like a real
 * module it never gives up on a server: a refused or failed connection is logged (warn) and
 * retried with back-off (src/module/links/backoff.ts), and the process stays up meanwhile.
 * With `--simulate day` each module first sends a past day as history (src/module/vehicle/
 * simulated-day.ts), its progress on stderr; a server that refuses it (the login, or every
 * acknowledgement for a minute) ends the process with the reason and exit code 1.
 */
import { Option, type Command } from 'commander';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { addConfigFileOption, addConfigOption, parseCount, parseLogLevel, parsePort, resolveOptions } from '../util/config.js';
import { VtsError } from '../errors.js';
import { createLogger } from '../util/log.js';
import { EmulatedModule } from '../module/module.js';
import { brokerName } from '../module/links/mqtt-link.js';

interface ModuleCliOptions {
  mp: string;
  /** The old name of --mp (a flag only). */
  server?: string;
  serverTls?: boolean;
  serverInsecure?: boolean;
  id: string;
  count: number;
  idPrefix: string;
  password?: string;
  apikey?: string;
  seed: number;
  speedup: number;
  intervalConnected: number;
  intervalIdle: number;
  links: string;
  mqtt: string;
  mqttUser?: string;
  mqttPassword?: string;
  mqttPrefix?: string;
  httpPort: number;
  sshPort: number;
  sshAuthorizedKeys?: string;
  stateDir: string;
  reconnectMin: number;
  reconnectMax?: number;
  logLevel: string;
  simulate?: 'day';
}

const LINKS = ['v2', 'mqtt', 'http', 'ssh'] as const;

/** `host[:port]` of the v2 (MP) server; a URL is refused (it is vts exec's --server form). */
function parseServer(value: string, from: string): { host: string; port: number } {
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const env = from === 'VTS_SERVER' ? " (VTS_SERVER is vts exec's server URL)" : '';
    throw new VtsError('VTS_ERR_CONFIG', `${from} is a URL${env}: the module takes its v2 (MP) server as host:port, e.g. --mp 127.0.0.1:6867 or VTS_MP=127.0.0.1:6867`, { whole: true });
  }
  const m = /^(.+?)(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[2] === undefined ? 6867 : Number(m[2]);
  if (!m || port < 1 || port > 65535 || m[1]!.includes('/')) throw new VtsError('VTS_ERR_CONFIG', `${from} is not a host[:port] (e.g. 127.0.0.1:6867): ${value}`, { whole: true });
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/**
 * The v2 server and where it was given: --mp, else --server (its old name, on the command line),
 * else VTS_MP or the config file's "mp", else VTS_SERVER (its old variable, host:port only: a URL
 * there is vts exec's), else the default.
 */
function mpServer(cmd: Command, o: ModuleCliOptions): { value: string; from: string } {
  const source = cmd.getOptionValueSource('mp');
  if (source === 'cli') return { value: o.mp, from: '--mp' };
  if (o.server !== undefined && cmd.getOptionValueSource('server') === 'cli') return { value: o.server, from: '--server' };
  if (source === 'env') return { value: o.mp, from: 'VTS_MP' };
  if (source === 'config') return { value: o.mp, from: '"mp" of the config file' };
  const old = process.env.VTS_SERVER;
  if (old !== undefined && old.trim() !== '') return { value: old, from: 'VTS_SERVER' };
  return { value: o.mp, from: '--mp' };
}

function parseMqttUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new VtsError('VTS_ERR_CONFIG', `not an mqtt:// or mqtts:// URL: ${value}`);
  }
  if ((url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') || !url.hostname) {
    throw new VtsError('VTS_ERR_CONFIG', `not an mqtt:// or mqtts:// URL: ${value}`);
  }
  return value.trim();
}

function parseLinks(value: string): string {
  for (const l of value.split(',').map((s) => s.trim())) {
    if (l && !(LINKS as readonly string[]).includes(l)) throw new VtsError('VTS_ERR_CONFIG', `unknown link ${l} (known: ${LINKS.join(', ')})`);
  }
  return value;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 86_400)) throw new VtsError('VTS_ERR_CONFIG', `not a number of seconds > 0 and ≤ 86400: ${value}`);
  return n;
}

/** The option errors of a link set: each option is required by the links that use it, and says so. */
function checkLinkOptions(o: ModuleCliOptions, links: Set<string>): void {
  if (links.has('v2') && !o.password) {
    throw new VtsError('VTS_ERR_CONFIG', "--password (or VTS_PASSWORD), the vehicle's server password, is required with the v2 link");
  }
  const keyed = ['http', 'ssh'].filter((l) => links.has(l));
  if (keyed.length > 0 && !o.apikey) {
    const which = keyed.length === 2 ? 'the http and ssh links' : `the ${keyed[0]!} link`;
    throw new VtsError('VTS_ERR_CONFIG', `--apikey (or VTS_APIKEY), the modules' admin password, is required with ${which}`);
  }
  if (links.has('ssh') && !o.sshAuthorizedKeys) {
    throw new VtsError('VTS_ERR_CONFIG', '--ssh-authorized-keys (or VTS_SSH_AUTHORIZED_KEYS) is required with the ssh link');
  }
  if (links.has('mqtt') && !o.mqttUser) {
    throw new VtsError('VTS_ERR_CONFIG', "--mqtt-user (or VTS_MQTT_USER), the vehicle owner's user name, is required with the mqtt link");
  }
  if (links.has('mqtt') && o.mqttPrefix !== undefined && o.count > 1) {
    throw new VtsError('VTS_ERR_CONFIG', '--mqtt-prefix would put every module under one prefix: use it with --count 1');
  }
  if (o.reconnectMax !== undefined && o.reconnectMax < o.reconnectMin) {
    throw new VtsError('VTS_ERR_CONFIG', `--reconnect-max (${o.reconnectMax} s) must not be below --reconnect-min (${o.reconnectMin} s)`);
  }
}

function parseSimulate(value: string): 'day' {
  if (value.trim() !== 'day') throw new VtsError('VTS_ERR_CONFIG', `--simulate takes day, not ${value}`);
  return 'day';
}

function parseSpeedup(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 10_000)) throw new VtsError('VTS_ERR_CONFIG', `speedup must be > 0 and ≤ 10000: ${value}`);
  return n;
}

export function registerModule(program: Command): void {
  const cmd = program
    .command('module')
    .description('run emulated OVMS vehicle modules that connect to a server as cars')
    .addHelpText(
      'after',
      '\nExample:\n  vts module --mp 127.0.0.1:6867 --id DEMO1 --password NETPASS\n' +
        '  vts module --id DEMO1 --password NETPASS --simulate day\n' +
        '  vts module --count 100 --id-prefix EMU --password NETPASS --speedup 10',
    );
  addConfigFileOption(cmd);
  addConfigOption(cmd, '--mp <host:port>', 'v2 (MP) server to connect to, as host:port (not a URL)', { default: '127.0.0.1:6867' });
  cmd.addOption(new Option('--server <host:port>', 'the old name of --mp').hideHelp());
  addConfigOption(cmd, '--server-tls', 'connect to the v2 server with TLS (port 6870)');
  addConfigOption(cmd, '--server-insecure', 'with --server-tls: accept any server certificate');
  addConfigOption(cmd, '--id <vehicleid>', 'vehicle id (with --count 1)', { default: 'EMU0001' });
  addConfigOption(cmd, '--count <n>', 'number of modules to run', { default: 1, parse: parseCount });
  addConfigOption(cmd, '--id-prefix <prefix>', 'with --count > 1: vehicle ids are <prefix>0001 and up', { default: 'EMU' });
  addConfigOption(cmd, '--password <carpass>', "the vehicles' server password (required with the v2 link)");
  addConfigOption(cmd, '--apikey <password>', "the modules' admin password (required with the http and ssh links)");
  addConfigOption(cmd, '--seed <n>', 'simulation seed (module k uses seed + k)', { default: 1, parse: parseCount });
  addConfigOption(cmd, '--speedup <n>', 'run the module clock n times faster than real time', { default: 1, parse: parseSpeedup });
  addConfigOption(cmd, '--interval-connected <s>', 'S/D update interval while apps are connected', { default: 60, parse: parseCount });
  addConfigOption(cmd, '--interval-idle <s>', 'S/D update interval without apps', { default: 600, parse: parseCount });
  addConfigOption(cmd, '--links <list>', `links to run, comma separated (${LINKS.join(', ')})`, { default: 'v2', parse: parseLinks });
  addConfigOption(cmd, '--mqtt <url>', 'MQTT broker of the mqtt link (the v3 server): mqtt://host[:port] or mqtts://host[:port]', {
    default: 'mqtt://127.0.0.1:1883',
    parse: parseMqttUrl,
  });
  addConfigOption(cmd, '--mqtt-user <name>', 'MQTT user name: the vehicle owner on the server (required with mqtt)');
  addConfigOption(cmd, '--mqtt-password <password>', 'MQTT password (not sent when empty)');
  addConfigOption(cmd, '--mqtt-prefix <prefix>', 'MQTT topic prefix, used verbatim (end it with /); default ovms/<user>/<vehicleid>/');
  addConfigOption(cmd, '--http-port <port>', 'module HTTP server (/api/execute); module k listens on port + k (0 = any)', {
    default: 80,
    parse: parsePort,
  });
  addConfigOption(cmd, '--ssh-port <port>', 'module SSH server; module k listens on port + k (0 = any)', { default: 22, parse: parsePort });
  addConfigOption(cmd, '--ssh-authorized-keys <file>', 'OpenSSH authorized_keys file of the SSH link (required with ssh)');
  addConfigOption(cmd, '--reconnect-min <s>', 'first retry delay (seconds) of the v2 and mqtt links; it doubles with each failure, less a random 0–20 %', {
    default: 1,
    parse: parseSeconds,
  });
  addConfigOption(cmd, '--reconnect-max <s>', 'longest retry delay (seconds) of the v2 and mqtt links (default 60, or --reconnect-min when larger)', {
    parse: parseSeconds,
  });
  addConfigOption(cmd, '--state-dir <dir>', 'folder for the modules\' state (SSH host keys)', { default: './module-state' });
  addConfigOption(
    cmd,
    '--simulate <day>',
    '--simulate day: send a realistic past day (drives, an AC charge at home, a DC charge on the road) as history and firmware logs, then stay live',
    { parse: parseSimulate },
  );
  addConfigOption(cmd, '--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', { default: 'info', parse: parseLogLevel });

  cmd.action(async () => {
    const o = resolveOptions<ModuleCliOptions>(cmd);
    if (o.count < 1) throw new VtsError('VTS_ERR_CONFIG', '--count must be at least 1');
    const links = new Set(o.links.split(',').map((s) => s.trim()).filter((s) => s !== ''));
    checkLinkOptions(o, links);
    const log = createLogger(o.logLevel);
    const portFor = (base: number, k: number): number => (base === 0 ? 0 : base + k);
    const mp = mpServer(cmd, o);
    const server = links.has('v2') ? parseServer(mp.value, mp.from) : { host: '', port: 0 };
    const ids =
      o.count === 1 ? [o.id.toUpperCase()] : Array.from({ length: o.count }, (_, k) => `${o.idPrefix}${String(k + 1).padStart(4, '0')}`.toUpperCase());
    const progress = o.simulate ? new DayProgress(ids.length) : null;
    const modules = ids.map(
      (id, k) =>
        new EmulatedModule({
          id,
          simulate: o.simulate,
          onBackfillProgress: progress ? (acked) => progress.update(k, acked) : undefined,
          seed: o.seed + k,
          carPassword: o.password ?? '',
          adminPassword: o.apikey ?? '',
          speedup: o.speedup,
          intervals: { connected: o.intervalConnected, idle: o.intervalIdle },
          reconnect: { minMs: Math.round(o.reconnectMin * 1000), maxMs: Math.round((o.reconnectMax ?? Math.max(60, o.reconnectMin)) * 1000) },
          http: links.has('http') ? { port: portFor(o.httpPort, k) } : undefined,
          ssh: links.has('ssh')
            ? {
                port: portFor(o.sshPort, k),
                authorizedKeysFile: o.sshAuthorizedKeys!,
                hostKeyFile: join(o.stateDir, id, 'ssh_host_ed25519_key'),
              }
            : undefined,
          mqtt: links.has('mqtt')
            ? { url: o.mqtt, username: o.mqttUser!, password: o.mqttPassword ?? '', topicPrefix: o.mqttPrefix }
            : undefined,
          server: links.has('v2')
            ? { ...server, tls: o.serverTls ? { rejectUnauthorized: !o.serverInsecure, servername: server.host } : undefined }
            : undefined,
          log,
        }),
    );
    const mqttUrl = links.has('mqtt') ? brokerName(o.mqtt) : undefined;
    const failure = progress ? progress.watch(modules, links.has('v2')) : undefined;
    await runUntilSignal(modules, log, failure, () => {
      log.info({ modules: ids.length, server: links.has('v2') ? mp.value : undefined, mqtt: mqttUrl, links: [...links] }, 'modules started');
      const ports = modules.map((m) => ({ id: m.opts.id, http: m.ports.http, ssh: m.ports.ssh }));
      process.stdout.write(JSON.stringify({ event: 'started', modules: ports }) + '\n');
    });
  });
}

/**
 * Starts the modules, calls `started`, and runs them until SIGTERM or SIGINT (one that comes
 * during the start is served once the start is done); then stops them and returns. The links'
 * retry timers do not hold the process (a program that embeds modules decides how long it runs),
 * so a referenced keep-alive handle does, from the start until the modules are stopped: a module
 * waiting to reconnect keeps running. A second signal while stopping ends the process at once.
 */
async function runUntilSignal(modules: EmulatedModule[], log: Logger, failure: Promise<never> | undefined, started: () => void): Promise<void> {
  const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);
  let signalled: (signal: NodeJS.Signals) => void = () => undefined;
  const signal = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  const onSignal = (s: NodeJS.Signals): void => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    signalled(s);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const stopAll = async (): Promise<void> => {
    const results = await Promise.allSettled(modules.map((m) => m.stop()));
    for (const r of results) if (r.status === 'rejected') log.error({ err: r.reason as unknown }, 'a module failed to stop');
  };
  try {
    for (const m of modules) await m.start();
  } catch (err) {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    clearInterval(keepAlive);
    await stopAll(); // the modules started before (their HTTP/SSH listeners) must not hold the process
    throw err;
  }
  started();
  let s: NodeJS.Signals;
  try {
    s = await (failure ? Promise.race([signal, failure]) : signal);
  } catch (err) {
    // the server refused the simulated day: stop, and say why (the command line prints the error)
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await stopAll();
    clearInterval(keepAlive);
    throw err;
  }
  log.info({ signal: s }, 'stopping modules');
  const hung = setTimeout(() => {
    log.error({ signal: s }, 'the modules did not stop within 5 s');
    process.exit(1);
  }, 5000).unref();
  await stopAll();
  clearTimeout(hung);
  clearInterval(keepAlive);
  log.info({ signal: s }, 'modules stopped');
}

/**
 * The progress of `--simulate day` on stderr: a line every 500 records the server acknowledged
 * ("simulating a day: 500 records sent…"), one when every module's day is stored. `watch` rejects
 * with the first module's failure (the server refused the login or stopped acknowledging).
 */
class DayProgress {
  private readonly acked: number[];
  private shown = 0;

  constructor(count: number) {
    this.acked = new Array<number>(count).fill(0);
  }

  update(k: number, acked: number): void {
    this.acked[k] = acked;
    const sum = this.acked.reduce((a, b) => a + b, 0);
    if (sum - this.shown >= 500) {
      this.shown = sum;
      process.stderr.write(`simulating a day: ${sum} records sent…\n`);
    }
  }

  watch(modules: EmulatedModule[], v2: boolean): Promise<never> {
    const days = modules.map((m) => m.simulated);
    const backfills = days.flatMap((d) => (d?.backfill ? [d.backfill] : []));
    const logs = days.reduce((n, d) => n + (d?.logs.length ?? 0), 0);
    const all = Promise.all(backfills.map((b) => b.done));
    void all.then(
      () => {
        const total = backfills.reduce((n, b) => n + b.total, 0);
        const text = v2 ? `${total} records sent and stored` : `${logs} firmware logs queued for the MQTT link`;
        process.stderr.write(`simulating a day: ${text}; the module${modules.length > 1 ? 's are' : ' is'} live\n`);
      },
      () => undefined,
    );
    return new Promise<never>((_resolve, reject) => void all.catch(reject));
  }
}
