/**
 * `vts module`: runs one or many emulated OVMS v3 vehicle modules until SIGTERM or SIGINT. Each
 * module connects to a vts (or any OVMS v2) server as a car, and/or to an MQTT broker as a v3
 * module, and answers commands; see src/module/module.ts.
 */
import type { Command } from 'commander';
import { join } from 'node:path';
import { addConfigFileOption, addConfigOption, parseCount, parseLogLevel, parsePort, resolveOptions } from '../config.js';
import { VtsError } from '../errors.js';
import { createLogger } from '../log.js';
import { EmulatedModule } from '../module/module.js';

interface ModuleCliOptions {
  server: string;
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
  logLevel: string;
}

const LINKS = ['v2', 'mqtt', 'http', 'ssh'] as const;

function parseServer(value: string): { host: string; port: number } {
  const m = /^(.+?)(?::(\d{1,5}))?$/.exec(value.trim());
  const port = m?.[2] === undefined ? 6867 : Number(m[2]);
  if (!m || port < 1 || port > 65535) throw new VtsError('VTS_ERR_CONFIG', `not a host[:port]: ${value}`);
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port };
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
      '\nExample:\n  vts module --server 127.0.0.1:6867 --id DEMO1 --password NETPASS\n' +
        '  vts module --count 100 --id-prefix EMU --password NETPASS --speedup 10',
    );
  addConfigFileOption(cmd);
  addConfigOption(cmd, '--server <host:port>', 'v2 (MP) server to connect to', { default: '127.0.0.1:6867' });
  addConfigOption(cmd, '--server-tls', 'connect to the v2 server with TLS (port 6870)');
  addConfigOption(cmd, '--server-insecure', 'with --server-tls: accept any server certificate');
  addConfigOption(cmd, '--id <vehicleid>', 'vehicle id (with --count 1)', { default: 'EMU0001' });
  addConfigOption(cmd, '--count <n>', 'number of modules to run', { default: 1, parse: parseCount });
  addConfigOption(cmd, '--id-prefix <prefix>', 'with --count > 1: vehicle ids are <prefix>0001 and up', { default: 'EMU' });
  addConfigOption(cmd, '--password <carpass>', 'the vehicle(s) server password (required)');
  addConfigOption(cmd, '--apikey <password>', "the modules' admin password (module HTTP and SSH links)");
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
  addConfigOption(cmd, '--state-dir <dir>', 'folder for the modules\' state (SSH host keys)', { default: './module-state' });
  addConfigOption(cmd, '--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', { default: 'info', parse: parseLogLevel });

  cmd.action(async () => {
    const o = resolveOptions<ModuleCliOptions>(cmd);
    if (!o.password) throw new VtsError('VTS_ERR_CONFIG', '--password (or VTS_PASSWORD) is required');
    if (o.count < 1) throw new VtsError('VTS_ERR_CONFIG', '--count must be at least 1');
    const log = createLogger(o.logLevel);
    const links = new Set(o.links.split(',').map((s) => s.trim()));
    if ((links.has('http') || links.has('ssh')) && !o.apikey) {
      throw new VtsError('VTS_ERR_CONFIG', '--apikey (the modules\' admin password) is required with the http and ssh links');
    }
    if (links.has('ssh') && !o.sshAuthorizedKeys) throw new VtsError('VTS_ERR_CONFIG', '--ssh-authorized-keys is required with the ssh link');
    if (links.has('mqtt') && !o.mqttUser) {
      throw new VtsError('VTS_ERR_CONFIG', "--mqtt-user (the vehicle owner's user name) is required with the mqtt link");
    }
    if (links.has('mqtt') && o.mqttPrefix !== undefined && o.count > 1) {
      throw new VtsError('VTS_ERR_CONFIG', '--mqtt-prefix would put every module under one prefix: use it with --count 1');
    }
    const portFor = (base: number, k: number): number => (base === 0 ? 0 : base + k);
    const server = parseServer(o.server);
    const ids =
      o.count === 1 ? [o.id.toUpperCase()] : Array.from({ length: o.count }, (_, k) => `${o.idPrefix}${String(k + 1).padStart(4, '0')}`.toUpperCase());
    const modules = ids.map(
      (id, k) =>
        new EmulatedModule({
          id,
          seed: o.seed + k,
          carPassword: o.password!,
          adminPassword: o.apikey ?? '',
          speedup: o.speedup,
          intervals: { connected: o.intervalConnected, idle: o.intervalIdle },
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
    for (const m of modules) await m.start();
    log.info({ modules: ids.length, server: o.server, mqtt: links.has('mqtt') ? o.mqtt : undefined, links: [...links] }, 'modules started');
    const ports = modules.map((m) => ({ id: m.opts.id, http: m.ports.http, ssh: m.ports.ssh }));
    process.stdout.write(JSON.stringify({ event: 'started', modules: ports }) + '\n');

    await new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        log.info({ signal }, 'stopping modules');
        setTimeout(() => process.exit(1), 5000).unref();
        void Promise.all(modules.map((m) => m.stop())).then(() => resolve());
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  });
}
