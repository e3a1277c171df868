/**
 * Every command line of the README's examples runs as written. The test reads README.md and the
 * guides its long sections moved to (GUIDES, in the README's order), takes each line of its indented code blocks that starts a command (`npm`, `npx vts`, `vts`, `curl`), and
 * runs it with bash in a fresh folder (so `./data` is new), against a real `vts serve` child
 * process and real emulated modules. What a reader's machine has and the test's does not is mapped,
 * never the command itself: `vts`/`npx vts` run this checkout's CLI; the README's ports (6867, 6868,
 * 1883, 1884) become the free ports the test's server took, also for the defaults of `vts exec`;
 * the module at `192.168.4.1` is an emulated module with its HTTP and SSH links; `$TOKEN` is a
 * token with the right `command`; `~` is a home folder with an SSH key the module accepts.
 * Lines that cannot run here are listed in SKIP with the reason (curl lines are skipped with a line
 * when curl is missing, unless VTS_TEST_REQUIRE_SERVICES=1); every other line runs, so the README
 * cannot gain an example that does not work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { generateEd25519 } from '../../src/module/links/ssh-keys.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { curl, needs } from '../support/services.js';
import { vtsWords } from '../support/vts-command.js';

const README = new URL('../../README.md', import.meta.url);
/** The guides in docs/ that were sections of the README, in the order the README links them. */
const GUIDES = ['push.md', 'moving.md', 'cluster.md', 'operations.md'].map((f) => new URL(`../../docs/${f}`, import.meta.url));

/** The README and its guides, as one text. */
function examplesText(): string {
  return [README, ...GUIDES].map((u) => readFileSync(u, 'utf8')).join('\n');
}

/** How `vts` runs this checkout (test/support/vts-command.ts), as a shell command. */
function vtsCommand(): string {
  return vtsWords().map((w) => `"${w}"`).join(' ');
}
const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** Lines that do not run here, by pattern, with the reason. */
const SKIP: [RegExp, string][] = [
  [/^npm install && npm start$/, 'the test runs `vts serve` itself (on free ports); CI runs npm install'],
  [/^(npm install && )?npm test\b/, 'this test is part of that run'],
  [/^npm run bench\b/, 'a benchmark of minutes, not an example to check'],
  [/^vts serve --mqtt-port 1884$/, 'the server the test runs has its broker on a free port, which stands for 1884'],
  [/^vts serve --cluster /, 'nodes of a cluster on other machines (test/cluster/ runs real clusters, --workers included)'],
  [/^vts import /, "a reference server's database on another machine (test/import/ imports one from the local MariaDB)"],
  [/^vts backup \/var\/backups\//, "writes into the machine's /var/backups (test/cli/backup.test.ts runs vts backup under write load)"],
  [/\[|\b(NAME|ID|P|CARPASS|VEHICLE|COMMAND)\b/, 'a synopsis of the CLI reference (placeholders in capitals, options in brackets), not an example'],
];

/** The README's command lines, in order, without their `# comments`. */
export function readmeCommands(text: string): string[] {
  const lines: string[] = [];
  let inFence = false;
  for (const raw of text.split('\n')) {
    if (raw.startsWith('```')) inFence = !inFence;
    if (inFence || !raw.startsWith('    ')) continue;
    const line = raw.trim().replace(/\s+#\s.*$/, '');
    if (/^(npm|npx vts|vts|curl) /.test(line)) lines.push(line);
  }
  return lines;
}

interface Ports {
  mp: number;
  http: number;
  mqtt: number;
  moduleHttp: number;
  moduleSsh: number;
}

/** The line with the README's addresses replaced by the test's. */
function mapAddresses(line: string, p: Ports): string {
  return line
    .replace(/--via http --module http:\/\/192\.168\.4\.1/, `--via http --module http://127.0.0.1:${p.moduleHttp}`)
    .replace(/--via ssh --module 192\.168\.4\.1/, `--via ssh --module 127.0.0.1:${p.moduleSsh}`)
    .replace(/(localhost|127\.0\.0\.1):6868/g, `127.0.0.1:${p.http}`)
    .replace(/(localhost|127\.0\.0\.1):6867/g, `127.0.0.1:${p.mp}`)
    .replace(/(localhost|127\.0\.0\.1):188[34]/g, `127.0.0.1:${p.mqtt}`);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(line: string, cwd: string, env: NodeJS.ProcessEnv, input: string): ChildProcess {
  const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.end(input);
  return child;
}

function finish(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** The first line of a long-running command's stdout (its JSON start line). */
function firstLine(child: ChildProcess, what: string): Promise<string> {
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${stderr}`)));
  });
}

function stopped(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return done;
}

test('the README\'s command lines are found (indented code blocks)', () => {
  const lines = readmeCommands(examplesText());
  assert.ok(lines.length >= 15, `only ${lines.length} command lines found: is the extraction broken?`);
  assert.ok(lines.includes('npx vts user add demo --password demopass'), lines.join('\n'));
});

test('every README example runs as written against a real server', async (t) => {
  const lines = readmeCommands(examplesText());
  const dir = mkdtempSync(join(tmpdir(), 'vts-readme-'));
  const home = join(dir, 'home');
  const bin = join(dir, 'bin');
  const work = join(dir, 'work');
  for (const d of [join(home, '.ssh'), bin, work]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const children: ChildProcess[] = [];
  const modules: EmulatedModule[] = [];
  t.after(async () => {
    await Promise.all(modules.map((m) => m.stop()));
    await Promise.all(children.map(stopped));
    rmSync(dir, { recursive: true, force: true });
  });

  // `vts` and `npx vts` run this checkout; `vts exec` finds the test's server at its defaults
  writeFileSync(
    join(bin, 'vts'),
    [
      '#!/bin/sh',
      'if [ "$1" = exec ]; then export VTS_SERVER="$README_SERVER" VTS_MP="$README_MP" VTS_MQTT="$README_MQTT"; fi',
      `exec ${vtsCommand()} "$@"`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(bin, 'npx'), '#!/bin/sh\n[ "$1" = vts ] && shift\nexec vts "$@"\n');
  chmodSync(join(bin, 'vts'), 0o755);
  chmodSync(join(bin, 'npx'), 0o755);
  const key = generateEd25519();
  writeFileSync(join(home, '.ssh', 'id_ed25519'), key.private, { mode: 0o600 });
  writeFileSync(join(dir, 'authorized_keys'), key.public + '\n');

  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
  const env: NodeJS.ProcessEnv = { ...base, HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` };

  // the server, as `npm start` runs it, on free ports
  const serve = bash('vts serve --mp-port 0 --http-port 0 --mqtt-port 0 --rate-limit-burst 0 --log-level warn', work, env, '');
  children.push(serve);
  const ports = JSON.parse(await firstLine(serve, 'vts serve')) as { mp: number; http: number; mqtt: number };
  // the module at 192.168.4.1 of the examples: its own HTTP and SSH servers
  const direct = new EmulatedModule({
    id: 'DEMO1',
    seed: 2,
    carPassword: 'NETPASS',
    adminPassword: 'modulepass',
    http: { host: '127.0.0.1', port: 0 },
    ssh: { host: '127.0.0.1', port: 0, authorizedKeysFile: join(dir, 'authorized_keys'), hostKeyFile: join(dir, 'host_key') },
    log: quiet,
  });
  modules.push(direct);
  await direct.start();
  const p: Ports = { ...ports, moduleHttp: direct.ports.http!, moduleSsh: direct.ports.ssh! };
  Object.assign(env, {
    README_SERVER: `http://127.0.0.1:${p.http}`,
    README_MP: `127.0.0.1:${p.mp}`,
    README_MQTT: `mqtt://127.0.0.1:${p.mqtt}`,
  });

  const http = (path: string, init?: RequestInit): Promise<Response> => fetch(`http://127.0.0.1:${p.http}${path}`, init);
  const online = async (link: 'v2' | 'mqtt'): Promise<void> => {
    const sessionless = await http('/api/vehicles?username=demo&password=demopass');
    const rows = (await sessionless.json()) as { id: string; v_net_connected: number }[];
    if (rows.find((r) => r.id === 'DEMO1')?.v_net_connected !== 1) throw new Error(`DEMO1 is not online (${link})`);
  };

  const noCurl = await needs(curl);
  const ran: string[] = [];
  const seen = new Set<string>();
  // `vts exec` lines do not depend on one another: a run of them goes at once (each is a process)
  let pending: { line: string; mapped: string; run: Promise<Run> }[] = [];
  const settle = async (): Promise<void> => {
    for (const { line, mapped, run } of pending) {
      const r = await run;
      assert.equal(r.code, 0, `${line}\n  ran as: ${mapped}\n  exit ${r.code}\n  stdout: ${r.stdout}\n  stderr: ${r.stderr}`);
      assert.doesNotMatch(r.stdout + r.stderr, /Authentication failed|Forbidden|Unrecognised|ERROR|vts: /, `${line}: ${r.stdout}${r.stderr}`);
      ran.push(line);
      t.diagnostic(`ran: ${line}`);
    }
    pending = [];
  };
  for (const line of lines) {
    const skip = SKIP.find(([re]) => re.test(line)) ?? (line.startsWith('curl ') && noCurl ? [/curl/, noCurl] : undefined);
    if (skip) {
      t.diagnostic(`not run: ${line} (${skip[1]})`);
      continue;
    }
    if (seen.has(line)) continue; // the same example shown again in another section
    seen.add(line);
    const mapped = mapAddresses(line, p);
    if (!/^vts exec\b/.test(line)) await settle();
    if (/^(npx )?vts module\b/.test(line)) {
      // a module runs until stopped: it prints where it is, then connects
      const child = bash(mapped, work, env, '');
      children.push(child);
      const started = JSON.parse(await firstLine(child, line)) as { event: string };
      assert.equal(started.event, 'started', line);
      await eventually(() => online(line.includes('--links mqtt') ? 'mqtt' : 'v2').then(() => true, () => undefined), `${line}: DEMO1 online`, 30_000);
      ran.push(line);
      t.diagnostic(`running: ${line}`);
      continue;
    }
    if (line.includes('$TOKEN') && !env.TOKEN) {
      const r = await http('/api/token?username=demo&password=demopass', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'application=readme&purpose=test&permit=command',
      });
      env.TOKEN = ((await r.json()) as { token: string }).token;
    }
    const input = /--apikey -/.test(line) ? 'modulepass\n' : /--password -/.test(line) ? 'demopass\n' : '';
    if (/^vts exec\b/.test(line)) {
      pending.push({ line, mapped, run: finish(bash(mapped, work, { ...env }, input)) });
      continue;
    }
    const r = await finish(bash(mapped, work, env, input));
    assert.equal(r.code, 0, `${line}\n  ran as: ${mapped}\n  exit ${r.code}\n  stdout: ${r.stdout}\n  stderr: ${r.stderr}`);
    assert.doesNotMatch(r.stdout + r.stderr, /Authentication failed|Forbidden|Unrecognised|ERROR|vts: /, `${line}: ${r.stdout}${r.stderr}`);
    ran.push(line);
    t.diagnostic(`ran: ${line}`);
  }
  await settle();
  // the examples this test is about: nothing of these may silently drop out of the run
  for (const must of [/^npx vts vehicle add DEMO1/, /^npx vts module /, /^vts module --id DEMO1 --links mqtt/, /^vts exec DEMO1 --js/, ...(noCurl ? [] : [/^curl /])]) {
    assert.ok(ran.some((l) => must.test(l)), `no README line ${must} ran: ${ran.join('\n')}`);
  }
  for (const child of children) assert.equal(await stopped(child), 0, 'SIGTERM stops serve and module with exit code 0');
});
