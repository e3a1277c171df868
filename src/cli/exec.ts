/**
 * `vts exec VEHICLE COMMAND...`: runs a console command (or JavaScript, or an MP command) on a
 * vehicle module over any of its command paths (docs/protocol/commands.md §1), prints the
 * output on stdout and exits 0, or 1 with a one-line `vts: …` on stderr when the command failed or
 * could not be run:
 * - `server` (default): the server's JSON command API `POST /api/command/<VEHICLE>`;
 * - `mp`: as an MP batch client of a v2 server, `C7,<command>` (or any MP command);
 * - `mqtt`: the module's v3 topics `client/<cid>/command/<n>` and `…/response/<n>`;
 * - `http`: the module's own `/api/execute`;
 * - `ssh`: the module's SSH server, the command as the exec request.
 * Inputs are checked here, at the edge; each path lives in src/cli/exec/ and is loaded when used.
 * No message ever shows a password, token or API key.
 */
import { homedir } from 'node:os';
import type { Command } from 'commander';
import { consoleLine } from '../core/commands/console-words.js';
import { toMpCommand, type CommandKind } from '../core/commands/request.js';
import { addConfigFileOption, addConfigOption, resolveOptions } from '../util/config.js';
import { isVtsError, VtsError } from '../errors.js';
import { ExecError, oneLine, parseHostPort, VIAS, type ExecOutcome, type ExecRequest, type Via } from './exec/common.js';
import { passwordFromOption, validateUserName, validateVehicleId } from './shared-options.js';

interface ExecCliOptions {
  via: string;
  js?: boolean;
  timeout: string | number;
  mpCode?: string | number;
  server: string;
  user?: string;
  password?: string;
  token?: string;
  mp: string;
  mqtt: string;
  mqttPrefix?: string;
  module?: string;
  apikey?: string;
  identity: string;
  sshUser: string;
  sshFingerprint?: string;
}

const MAX_TIMEOUT_S = 3600;
const RESULT_NAMES = ['ok', 'failed', 'unsupported', 'unimplemented'] as const;

const invalid = (detail: string): VtsError => new VtsError('VTS_ERR_INVALID_INPUT', detail);

// --- validation at the edge ---

function parseVia(value: string): Via {
  const v = value.trim().toLowerCase();
  if (!(VIAS as readonly string[]).includes(v)) throw invalid(`--via must be one of ${VIAS.join(', ')}: ${JSON.stringify(value)}`);
  return v as Via;
}

function parseTimeout(value: string | number): number {
  const text = String(value).trim();
  const s = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(s > 0 && s <= MAX_TIMEOUT_S)) throw invalid(`--timeout must be a number of seconds above 0 and at most ${MAX_TIMEOUT_S}: ${JSON.stringify(text)}`);
  return Math.max(1, Math.round(s * 1000));
}

function parseMpCode(value: string | number): number {
  const text = String(value).trim();
  if (!/^\d{1,4}$/.test(text)) throw invalid(`--mp-code must be an MP command number (0-9999): ${JSON.stringify(text)}`);
  return Number(text);
}

/** The extended syntax of the apps' command shells (docs/protocol/commands.md §8.2): `#…`, `*…#`, `@…`. */
function isExtended(text: string): boolean {
  return text.startsWith('#') || (text.startsWith('*') && text.endsWith('#') && text.length > 2) || (text.startsWith('@') && text.length > 1);
}

/** An http(s) URL without credentials, query or fragment (a bare `host[:port]` means http://). */
function parseHttpUrl(value: string, option: string): URL {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw invalid(`${option} must be an http:// or https:// URL: ${JSON.stringify(text)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw invalid(`${option} must be an http:// or https:// URL: ${JSON.stringify(text)}`);
  }
  if (url.username || url.password) throw invalid(`${option} must not hold credentials: give them with the options`);
  if (url.search || url.hash) throw invalid(`${option} must not have a query or fragment`);
  return url;
}

/**
 * --server (VTS_SERVER): the vts server's URL. A host:port there is refused: it is the MP
 * server's form (`vts module --mp`, `vts exec --via mp --mp`), and taken as http:// it would reach
 * the MP port with HTTP.
 */
function parseServerUrl(value: string, from: string): URL {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) {
    throw invalid(`${from} must be the vts server's URL, e.g. http://127.0.0.1:6868 (its HTTP API), not ${JSON.stringify(value.trim())}; a v2 (MP) server is host:port with --via mp --mp (VTS_MP)`);
  }
  return parseHttpUrl(value, from);
}

function parseMqttUrl(value: string): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`--mqtt must be an mqtt:// or mqtts:// URL: ${JSON.stringify(text)}`);
  }
  if ((url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') || !url.hostname) {
    throw invalid(`--mqtt must be an mqtt:// or mqtts:// URL: ${JSON.stringify(text)}`);
  }
  if (url.username || url.password) throw invalid('--mqtt must not hold credentials: give them with --user and --password');
  return `${url.protocol}//${url.host}`;
}

function parseMqttPrefix(value: string): string {
  if (value === '' || value.length > 200 || /[+#\s]/.test(value) || value.includes('\0')) {
    throw invalid('--mqtt-prefix must be 1-200 characters without spaces, + or #');
  }
  return value;
}

function parseSshModule(value: string): { host: string; port: number } {
  const text = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !text.toLowerCase().startsWith('ssh://')) {
    throw invalid(`--module must be host[:port] (or ssh://host[:port]) with --via ssh: ${JSON.stringify(text)}`);
  }
  return parseHostPort(text.replace(/^ssh:\/\//i, '').replace(/\/$/, ''), 22, '--module');
}

function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

/** Option values that may be `-`: read from stdin (one of them at most). */
async function readSecrets(o: ExecCliOptions): Promise<void> {
  const fromStdin = (['password', 'token', 'apikey'] as const).filter((k) => o[k] === '-');
  if (fromStdin.length > 1) throw invalid(`only one of --password, --token and --apikey can be read from stdin (-)`);
  for (const k of fromStdin) {
    o[k] = await passwordFromOption('-', k);
    if (o[k] === '') throw invalid(`the ${k} read from stdin is empty`);
  }
}

/**
 * The request: the words joined by spaces; for the console, two or more words are each quoted as
 * the module's console reads them (one word is a console line as it is). The kind from --js,
 * --mp-code or the text.
 */
function buildRequest(vehicle: string, words: string[], o: ExecCliOptions, via: Via, timeoutMs: number): ExecRequest {
  const vehicleId = validateVehicleId(vehicle);
  let text = words.join(' ');
  let kind: CommandKind;
  if (o.mpCode !== undefined) {
    if (o.js) throw invalid('--js and --mp-code exclude each other');
    const code = parseMpCode(o.mpCode);
    text = text === '' ? `#${code}` : `#${code},${text}`;
    kind = 'mp';
  } else if (o.js) {
    kind = 'js';
  } else {
    kind = isExtended(text) ? 'mp' : 'shell';
    if (kind === 'shell' && words.length > 1) {
      try {
        text = consoleLine(words);
      } catch (err) {
        throw invalid((err as Error).message);
      }
    }
  }
  if (text.trim() === '') throw invalid('no command given');
  if (kind === 'mp' && via !== 'server' && via !== 'mp') {
    throw invalid(`MP commands (#…, *…#, @…, --mp-code) go to the v2 server: use --via server or mp, not ${via}`);
  }
  const mp = toMpCommand(kind, text);
  return { vehicleId, kind, text, mp, consoleLine: kind === 'mp' ? null : mp.params, timeoutMs };
}

/** The user's secret: --password or --token, not both. */
function secret(o: ExecCliOptions, what: string): string | undefined {
  if (o.password !== undefined && o.token !== undefined) throw invalid('give --password or --token, not both');
  const s = o.password ?? o.token;
  if (s === '') throw invalid(`the ${o.password !== undefined ? 'password' : 'token'} is empty`);
  if (s !== undefined && /[\r\n]/.test(s)) throw invalid(`the ${what} contains a line break`);
  return s;
}

async function runVia(via: Via, req: ExecRequest, o: ExecCliOptions, from: string): Promise<ExecOutcome> {
  switch (via) {
    case 'server': {
      const url = parseServerUrl(o.server, from);
      if (o.user === undefined) throw invalid('--user is required with --via server');
      const user = validateUserName(o.user);
      const s = secret(o, 'password');
      if (s === undefined) throw invalid('--password or --token is required with --via server');
      const { runViaServer } = await import('./exec/server.js');
      return runViaServer(req, { url, user, secret: s, token: o.token !== undefined });
    }
    case 'mp': {
      const { host, port } = parseHostPort(o.mp, 6867, '--mp');
      const s = secret(o, 'password');
      let login: { scheme: 0; password: string } | { scheme: 1; username: string; password: string };
      if (o.user !== undefined) {
        if (s === undefined) throw invalid('--password or --token is required with --via mp --user (MP scheme 1)');
        login = { scheme: 1, username: validateUserName(o.user), password: s };
      } else {
        if (o.token !== undefined) throw invalid('--token needs --user (MP scheme 1)');
        if (s === undefined) throw invalid("--password (the vehicle's car password) is required with --via mp");
        if (/\s/.test(s)) throw invalid('a car password has no whitespace');
        login = { scheme: 0, password: s };
      }
      const { runViaMp } = await import('./exec/mp.js');
      return runViaMp(req, { host, port, login });
    }
    case 'mqtt': {
      const url = parseMqttUrl(o.mqtt);
      const username = o.user === undefined ? undefined : validateUserName(o.user);
      if (o.mqttPrefix === undefined && username === undefined) throw invalid('--user (or --mqtt-prefix) is required with --via mqtt');
      const prefix = o.mqttPrefix === undefined ? `ovms/${username}/${req.vehicleId}/` : parseMqttPrefix(o.mqttPrefix);
      const password = secret(o, 'password');
      if (password !== undefined && username === undefined) throw invalid('an MQTT password needs --user');
      const { runViaMqtt } = await import('./exec/mqtt.js');
      return runViaMqtt(req, { url, username, password, prefix });
    }
    case 'http': {
      if (o.module === undefined) throw invalid('--module (the module\'s URL, e.g. http://192.168.4.1) is required with --via http');
      const url = parseHttpUrl(o.module, '--module');
      const { runViaHttp } = await import('./exec/http.js');
      return runViaHttp(req, { url, apikey: o.apikey });
    }
    case 'ssh': {
      if (o.module === undefined) throw invalid('--module (the module\'s host[:port]) is required with --via ssh');
      const { host, port } = parseSshModule(o.module);
      if (!/^[^\s:@]{1,64}$/.test(o.sshUser)) throw invalid(`--ssh-user must be 1-64 characters without spaces, : or @`);
      const fingerprint = o.sshFingerprint?.trim();
      if (fingerprint !== undefined && !/^SHA256:[A-Za-z0-9+/]{43}$/.test(fingerprint)) {
        throw invalid('--ssh-fingerprint must be SHA256:<43 base64 characters>, as ssh-keygen -lf shows it');
      }
      const { runViaSsh } = await import('./exec/ssh.js');
      return runViaSsh(req, { host, port, username: o.sshUser, identity: expandHome(o.identity), fingerprint });
    }
  }
}

/** One line for `vts: …`; the code of a vts error after it. */
function describe(err: unknown): string {
  const code = isVtsError(err) || err instanceof ExecError ? err.code : undefined;
  // what to do about it, where the message cannot know
  const hint = code === 'VTS_ERR_NOT_CONNECTED' ? ": is its module running, and connected to this server? (see the module's log)" : '';
  if (isVtsError(err)) return `${err.message}${hint} (${err.code})`;
  if (err instanceof ExecError) return err.code ? `${err.message}${hint} (${err.code})` : err.message;
  return oneLine(err instanceof Error ? err.message : String(err), 500);
}

const HELP = `
The command words are joined with spaces, each word that holds a space quoted for the module's
console (vts exec CAR notify raise text alert charge.stopped "Charging stopped" sends the text as
one word). A command given as one argument goes as it is, quoted for the console by you
(vts exec CAR 'config set vehicle name "My car"'). Put -- before a command with words that start
with a dash (vts exec CAR -- run -ni stat). A command #<code>[,<params>][/<records>],
*<ussd># or @<modem command> is an MP command (via server or mp), as in the OVMS apps' shells.

Paths (--via):
  server  the vts server's command API (--server, --user with --password or --token)
  mp      as an MP batch client of a v2 server (--mp; --password: the car password, or --user
          with --password/--token for MP scheme 1)
  mqtt    the module's v3 MQTT topics (--mqtt, --user, --password, --mqtt-prefix)
  http    the module's own /api/execute (--module http://host[:port], --apikey)
  ssh     the module's SSH server (--module host[:port], --identity, --ssh-user)
For http and ssh, which talk to the module directly, VEHICLE only names the car.
--password, --token and --apikey take - to read the secret from stdin (keeps it out of the
process list and the shell history).

Exit status: 0 when the command ran and the vehicle answered ok; 1 otherwise (the output, if any,
still goes to stdout; the reason is one line on stderr).

Examples:
  vts exec DEMO1 stat --user demo --password - < password.txt
  vts exec DEMO1 --js 'print(OvmsMetrics.Value("v.b.soc"))' --user demo --token "$TOKEN"
  vts exec DEMO1 '#3/32' --user demo --password -         (MP command 3: the 32 parameters)
  vts exec DEMO1 --via mp --password NETPASS -- charge mode standard
  vts exec DEMO1 --via mqtt --user demo --password - metrics list v.b.soc
  vts exec DEMO1 --via http --module http://192.168.4.1 --apikey - --js 'print(1+1)'
  vts exec DEMO1 --via ssh --module 192.168.4.1:22 --identity ~/.ssh/id_ed25519 stat`;

export function registerExec(program: Command): void {
  const cmd = program
    .command('exec')
    .description('run a command on a vehicle module (through the server, MP, MQTT, the module HTTP or SSH server)')
    .argument('<vehicle>', 'vehicle id')
    .argument('[command...]', 'the console command (or JavaScript with --js, or MP command parameters with --mp-code)')
    .addHelpText('after', HELP);
  addConfigFileOption(cmd);
  addConfigOption(cmd, '--via <path>', `command path: ${VIAS.join(', ')}`, { default: 'server' });
  addConfigOption(cmd, '--js', 'the command is JavaScript (type js; script eval "<code>" on mp, mqtt and ssh)');
  addConfigOption(cmd, '--timeout <s>', 'seconds to wait for the answer, connecting included', { default: 30 });
  addConfigOption(cmd, '--mp-code <n>', 'send MP command <n> with the command words as its parameters (via server or mp)');
  addConfigOption(cmd, '--server <url>', 'vts server for --via server: the URL of its HTTP API (not host:port)', { default: 'http://127.0.0.1:6868' });
  addConfigOption(cmd, '--user <name>', 'user name (server, mqtt; mp: MP scheme 1 login)');
  addConfigOption(cmd, '--password <password>', 'account password (server, mp scheme 1), car password (mp), broker password (mqtt); - reads stdin');
  addConfigOption(cmd, '--token <token>', 'an API token instead of --password; - reads stdin');
  addConfigOption(cmd, '--mp <host:port>', 'v2 server (MP) for --via mp', { default: '127.0.0.1:6867' });
  addConfigOption(cmd, '--mqtt <url>', 'MQTT broker for --via mqtt: mqtt://host[:port] or mqtts://…', { default: 'mqtt://127.0.0.1:1883' });
  addConfigOption(cmd, '--mqtt-prefix <prefix>', "the module's topic prefix, verbatim (default ovms/<user>/<VEHICLE>/)");
  addConfigOption(cmd, '--module <address>', 'the module: http://host[:port] for --via http, host[:port] for --via ssh');
  addConfigOption(cmd, '--apikey <password>', "the module's admin password for --via http; - reads stdin");
  addConfigOption(cmd, '--identity <file>', 'private key file for --via ssh', { default: '~/.ssh/id_ed25519' });
  addConfigOption(cmd, '--ssh-user <name>', 'user name for --via ssh', { default: 'admin' });
  addConfigOption(cmd, '--ssh-fingerprint <SHA256:…>', "the module's SSH host key fingerprint; without it any host key is accepted");

  cmd.action(async (vehicle: string, words: string[]) => {
    let outcome: ExecOutcome;
    try {
      const o = resolveOptions<ExecCliOptions>(cmd);
      // a config file may give numbers ({"password": 1234}): every value but --js is text
      for (const [k, v] of Object.entries(o)) if (typeof v === 'number') (o as unknown as Record<string, unknown>)[k] = String(v);
      const via = parseVia(String(o.via));
      const timeoutMs = parseTimeout(o.timeout);
      const req = buildRequest(vehicle, words, o, via, timeoutMs);
      await readSecrets(o);
      const source = cmd.getOptionValueSource('server');
      outcome = await runVia(via, req, o, source === 'env' ? 'VTS_SERVER' : source === 'config' ? '"server" of the config file' : '--server');
    } catch (err) {
      process.stderr.write(`vts: ${describe(err)}\n`);
      process.exitCode = 1;
      return;
    }
    let out = outcome.output;
    // output ends with a line end, also where the module sends none (print(42))
    if (out !== '' && !out.endsWith('\n')) out += '\n';
    process.stdout.write(out);
    if (outcome.result !== 0) {
      process.stderr.write(`vts: the vehicle answered result ${outcome.result} (${RESULT_NAMES[outcome.result]})\n`);
      process.exitCode = 1;
    }
  });
}
