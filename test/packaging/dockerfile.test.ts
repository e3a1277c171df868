/**
 * The Dockerfile, checked without a Docker engine: its stages, that every file it copies from the
 * build context is there and not left out by .dockerignore, the runtime stage (non-root user, the
 * data dir as a volume, health check, ports, stop signal) and that it starts what `npm start`
 * starts. Also: every `vts serve` option and VTS_* variable named by the packaging files (the
 * Dockerfile, compose.yaml, the systemd unit and its environment file) is one the real CLI has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FREE_PORTS, exitCode, listening, serveProcess } from '../cli/serve-process.js';
import {
  ROOT,
  dockerignore,
  envOf,
  execForm,
  mapAt,
  parseDockerfile,
  parseUnit,
  parseYaml,
  serveHelp,
  splitFlags,
  unitValue,
  words,
  type Instruction,
  type Stage,
} from './parsers.js';

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const dockerfile = parseDockerfile(read('Dockerfile'));
const excluded = dockerignore(read('.dockerignore'));
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; bin: Record<string, string>; engines: { node: string } };
const runtime = dockerfile.stages.at(-1)!;

const all = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);
const last = (stage: Stage, keyword: string): Instruction | undefined => all(stage, keyword).at(-1);

/** COPY and ADD of a stage with their flags, sources and destination. */
function copies(stage: Stage): { ins: Instruction; from?: string; sources: string[]; dest: string }[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .map((ins) => {
      const { flags, rest } = splitFlags(ins.args);
      const w = words(rest);
      assert.ok(w.length >= 2, `line ${ins.line}: ${ins.keyword} needs a source and a destination`);
      return { ins, from: flags.get('from'), sources: w.slice(0, -1), dest: w.at(-1)! };
    });
}

/** Every file under a folder of the repository, relative to the root (node_modules left out). */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(p);
    return [p];
  });
}

/** The image's command: ENTRYPOINT and CMD of the runtime stage, both in exec form. */
function command(): string[] {
  const entry = last(runtime, 'ENTRYPOINT');
  const cmd = last(runtime, 'CMD');
  const e = entry ? execForm(entry.args) : [];
  const c = cmd ? execForm(cmd.args) : [];
  assert.ok(e !== null && c !== null, 'ENTRYPOINT and CMD in exec form (JSON), so that node is PID 1 and gets SIGTERM');
  return [...e, ...c];
}

test('multi-stage: named stages on a Node image the engines field allows; every --from names an earlier stage', () => {
  assert.ok(dockerfile.stages.length >= 2, 'at least two stages');
  const major = Number(/>=\s*(\d+)/.exec(pkg.engines.node)?.[1]);
  for (const stage of dockerfile.stages) {
    assert.ok(stage.name, `stage ${stage.index} (FROM ${stage.image}) has a name`);
    const m = /^node:(\d+)-/.exec(stage.image);
    assert.ok(m && Number(m[1]) >= major, `FROM ${stage.image}: a node:<major>-… image, major ≥ ${major}`);
  }
  assert.equal(new Set(dockerfile.stages.map((s) => s.name)).size, dockerfile.stages.length, 'stage names are unique');
  for (const stage of dockerfile.stages) {
    for (const c of copies(stage).filter((x) => x.from !== undefined)) {
      const from = dockerfile.stages.find((s) => s.name === c.from!.toLowerCase());
      assert.ok(from && from.index < stage.index, `line ${c.ins.line}: --from=${c.from} is an earlier stage`);
    }
  }
});

test('every COPY/ADD source of the build context exists and reaches the build whole (.dockerignore)', () => {
  let checked = 0;
  for (const stage of dockerfile.stages) {
    for (const c of copies(stage).filter((x) => x.from === undefined)) {
      for (const src of c.sources) {
        assert.doesNotMatch(src, /[*?[]/, `line ${c.ins.line}: ${src}: no globs (this test checks plain paths)`);
        const path = src.replace(/^\.\//, '').replace(/\/$/, '');
        assert.ok(existsSync(join(ROOT, path)), `line ${c.ins.line}: ${src} exists in the repository`);
        assert.equal(excluded(path), false, `line ${c.ins.line}: ${src} is not excluded by .dockerignore`);
        const files = statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
        const left = files.filter(excluded);
        assert.deepEqual(left, [], `line ${c.ins.line}: nothing under ${src} is excluded by .dockerignore`);
        checked++;
      }
    }
  }
  assert.ok(checked > 0, 'the Dockerfile copies files of the build context');
  // what must never go into the build context: dependencies and builds of this machine, a data dir
  for (const path of ['node_modules/x', 'dist/cli/main.js', 'data/vts.sqlite', '.git/config', 'test-artifacts/x', 'web/node_modules/x']) {
    assert.equal(excluded(path), true, `${path} is excluded by .dockerignore`);
  }
});

test('the build stage has every file `npm run build` reads, and the runtime stage takes dist/ from it', () => {
  const build = dockerfile.stages.find((s) => all(s, 'RUN').some((r) => /\bnpm run build\b/.test(r.args)));
  assert.ok(build, 'a stage runs npm run build');
  assert.ok(all(build, 'RUN').some((r) => /\bnpm ci\b/.test(r.args)), 'it installs with npm ci (the lockfile)');
  const copied = copies(build).filter((c) => c.from === undefined).flatMap((c) => c.sources.map((s) => s.replace(/\/$/, '')));
  const covered = (file: string): boolean => copied.some((s) => file === s || file.startsWith(s + '/'));
  // the files the build scripts name, and what they extend
  const named = `${pkg.scripts.build} ${pkg.scripts['build:web']}`.split(/\s+/).filter((w) => /\.\w+$/.test(w) && existsSync(join(ROOT, w)));
  const extended = named
    .filter((f) => f.endsWith('.json'))
    .map((f) => /"extends":\s*"\.\/([^"]+)"/.exec(read(f))?.[1])
    .filter((f): f is string => f !== undefined);
  assert.ok(named.includes('tsconfig.build.json'), `the build script names tsconfig.build.json: ${pkg.scripts.build}`);
  for (const file of [...named, ...extended, 'package.json', 'package-lock.json', 'src/cli/main.ts', 'web/index.html']) {
    assert.ok(covered(file), `the build stage copies ${file}`);
  }
  const dist = copies(runtime).find((c) => c.sources.some((s) => /(^|\/)dist\/?$/.test(s)));
  assert.equal(dist?.from, build.name, 'the runtime stage copies dist/ (with dist/web) from the build stage');
  assert.ok(copies(runtime).some((c) => c.from === undefined && c.sources.includes('package.json')), 'and package.json, which vts reads for its version');
});

test('the runtime stage has production dependencies only', () => {
  const nm = copies(runtime).find((c) => c.sources.some((s) => /node_modules\/?$/.test(s)));
  let ok = false;
  if (nm?.from) {
    const from = dockerfile.stages.find((s) => s.name === nm.from!.toLowerCase())!;
    ok = all(from, 'RUN').some((r) => /\bnpm ci\b[^&;]*--omit=dev/.test(r.args));
  } else {
    ok = all(runtime, 'RUN').some((r) => /\bnpm ci\b[^&;]*--omit=dev/.test(r.args));
  }
  assert.ok(ok, 'node_modules comes from `npm ci --omit=dev`');
});

test('the runtime stage runs as a user that is not root and that owns the data volume', () => {
  const user = last(runtime, 'USER')?.args.split(':')[0];
  assert.ok(user, 'USER is set');
  assert.ok(!['root', '0'].includes(user), `USER ${user} is not root`);
  const volume = last(runtime, 'VOLUME');
  assert.ok(volume, 'VOLUME is set');
  const dir = words(volume.args)[0]!;
  const made = all(runtime, 'RUN').some((r) => r.args.includes('chown') && r.args.includes(dir) && new RegExp(`\\b${user}\\b`).test(r.args));
  assert.ok(made, `a RUN gives ${dir} to ${user} (a new named volume takes the folder's owner from the image)`);
});

test('the data dir of the server is the volume', () => {
  const volumes = all(runtime, 'VOLUME').flatMap((v) => words(v.args));
  const env = new Map(all(runtime, 'ENV').flatMap((e) => [...envOf(e.args)]));
  const cmd = command();
  const flag = cmd.indexOf('--data-dir');
  const dataDir = flag >= 0 ? cmd[flag + 1] : env.get('VTS_DATA_DIR');
  assert.ok(dataDir, 'the data dir is set (VTS_DATA_DIR or --data-dir), not the default ./data under the code');
  assert.ok(volumes.includes(dataDir), `VOLUME ${dataDir}: ${JSON.stringify(volumes)}`);
});

/** The HEALTHCHECK's command (exec form) and its options. */
function healthcheck(): { flags: Map<string, string>; cmd: string[] } {
  const hc = last(runtime, 'HEALTHCHECK');
  assert.ok(hc, 'HEALTHCHECK is set');
  const { flags, rest } = splitFlags(hc.args);
  const m = /^CMD\s+(.*)$/s.exec(rest);
  assert.ok(m, `HEALTHCHECK CMD …: ${rest}`);
  return { flags, cmd: words(m[1]!) };
}

test('HEALTHCHECK GETs /health on the HTTP port', () => {
  const { flags, cmd } = healthcheck();
  for (const f of ['interval', 'timeout']) assert.ok(flags.has(f), `--${f} is set`);
  assert.equal(cmd[0], 'node', 'the image has node (and no curl)');
  const script = cmd.join(' ');
  const httpPort = serveHelp().defaults.get('--http-port');
  assert.match(script, /http:\/\/127\.0\.0\.1:/, 'on the loopback address');
  assert.ok(script.includes('/health'), 'the /health endpoint');
  assert.ok(script.includes(String(httpPort)), `the default HTTP port ${httpPort}`);
  assert.ok(script.includes('VTS_HTTP_PORT'), 'or the one VTS_HTTP_PORT sets');
  assert.match(script, /process\.exit\(1\)/, 'exit 1 when the server does not answer');
});

test('the HEALTHCHECK command passes against a running vts serve and fails once it has stopped', async (t) => {
  const { cmd } = healthcheck();
  const dir = mkdtempSync(join(tmpdir(), 'vts-healthcheck-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = serveProcess(['--data-dir', join(dir, 'data'), ...FREE_PORTS, '--mqtt-port', 'off', '--mqtts-port', 'off']);
  const { http } = (await listening(server)) as { http: number };
  // the image's command, with this machine's node, against the port the server took
  const check = (): number | null =>
    spawnSync(process.execPath, cmd.slice(1), { env: { PATH: process.env.PATH ?? '', VTS_HTTP_PORT: String(http) }, timeout: 30_000 }).status;
  assert.equal(check(), 0, 'healthy while the server runs');
  server.child.kill('SIGTERM');
  assert.equal(await exitCode(server), 0);
  assert.equal(check(), 1, 'unhealthy once it has stopped');
});

test("EXPOSE lists the README's default ports", () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('## Ports'), readme.indexOf('\n## ', readme.indexOf('## Ports') + 1));
  const ports = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => m[1]!).sort();
  assert.ok(ports.length >= 6, `the README's Ports table: ${ports.join(', ')}`);
  const exposed = all(runtime, 'EXPOSE')
    .flatMap((e) => words(e.args))
    .map((p) => p.replace(/\/tcp$/, ''))
    .sort();
  assert.deepEqual(exposed, ports);
});

test('the image starts what `npm start` starts, and stops with SIGTERM', () => {
  const start = pkg.scripts.start!.split(/\s+/).filter((w) => w !== 'exec');
  assert.deepEqual(command(), start, `ENTRYPOINT + CMD = ${pkg.scripts.start}`);
  const script = start.find((w) => w.endsWith('.js'))!;
  assert.ok(Object.values(pkg.bin).includes(script), `${script} is the package's bin`);
  assert.ok(existsSync(join(ROOT, script.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))), `${script} is built from src/`);
  assert.equal(last(runtime, 'STOPSIGNAL')?.args, 'SIGTERM');
});

test('every vts serve option and VTS_* variable in the packaging files is one the CLI has', () => {
  const help = serveHelp();
  const used: { where: string; options: string[]; env: string[] }[] = [];
  const envIn = (text: string): string[] => [...text.matchAll(/\bVTS_[A-Z0-9_]+/g)].map((m) => m[0]);
  const optionsAfterServe = (cmd: string[]): string[] => cmd.slice(cmd.indexOf('serve') + 1).filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]!);

  used.push({ where: 'Dockerfile', options: optionsAfterServe(command()), env: envIn(read('Dockerfile')) });

  const compose = parseYaml(read('compose.yaml'));
  const vts = mapAt(mapAt(compose, 'services'), 'vts');
  const composeCmd = vts.command === undefined ? [] : Array.isArray(vts.command) ? (vts.command as string[]) : String(vts.command).split(/\s+/);
  used.push({ where: 'compose.yaml', options: composeCmd.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]!), env: envIn(read('compose.yaml')) });

  const unit = parseUnit(read('packaging/systemd/vts.service'));
  const execStart = unitValue(unit, 'Service', 'ExecStart')!.split(/\s+/);
  assert.ok(execStart.includes('serve'), 'the unit runs vts serve');
  used.push({ where: 'packaging/systemd/vts.service', options: optionsAfterServe(execStart), env: envIn(read('packaging/systemd/vts.service')) });
  used.push({ where: 'packaging/systemd/vts.env', options: [], env: envIn(read('packaging/systemd/vts.env')) });

  for (const u of used) {
    for (const o of u.options) assert.ok(help.options.has(o), `${u.where}: ${o} is a vts serve option`);
    for (const e of u.env) assert.ok(help.env.has(e), `${u.where}: ${e} is the variable of a vts serve option`);
  }
  assert.ok(used.flatMap((u) => u.env).length > 0, 'the files name VTS_* variables');
});
