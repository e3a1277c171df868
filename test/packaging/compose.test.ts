/**
 * compose.yaml, read with the small YAML reader of parsers.ts (which refuses what it does not
 * know): vts built from the Dockerfile with PostgreSQL and Redis, started once both are healthy,
 * its database URL on the postgres service with that service's user, password and database, its
 * cluster URL on the redis service, named volumes, and no secret in the file (the password must be set).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, mapAt, parseDockerfile, parseYaml, serveHelp, words, type Yaml } from './parsers.js';

const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));
const services = mapAt(compose, 'services');
const vts = mapAt(services, 'vts');
const postgresName = ['postgres', 'db'].find((n) => n in services) ?? 'postgres';
const postgres = mapAt(services, postgresName);
const redis = mapAt(services, 'redis');
const env = (service: { [key: string]: Yaml }): { [key: string]: Yaml } => mapAt(service, 'environment');
const list = (v: Yaml | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);
const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1)!;

test('services vts, postgres and redis; vts is built from the Dockerfile', () => {
  assert.equal(vts.build, '.', 'vts is built from the Dockerfile at the root');
  assert.ok(existsSync(join(ROOT, 'Dockerfile')));
  assert.match(String(postgres.image), /^postgres:16(\b|$)/, 'PostgreSQL 16');
  assert.match(String(redis.image), /^redis:7(\b|$)/, 'Redis 7');
});

test('vts starts once PostgreSQL and Redis are healthy, and each has a health check', () => {
  const deps = mapAt(vts, 'depends_on');
  for (const name of [postgresName, 'redis']) {
    assert.equal(mapAt(deps, name).condition, 'service_healthy', `depends_on ${name}: condition service_healthy`);
    const hc = mapAt(services[name], 'healthcheck');
    assert.ok(list(hc.test).length > 1 && list(hc.test)[0] === 'CMD', `${name} has a healthcheck test in exec form`);
  }
  assert.deepEqual(list(mapAt(postgres, 'healthcheck').test).slice(1, 2), ['pg_isready']);
  assert.deepEqual(list(mapAt(redis, 'healthcheck').test).slice(1), ['redis-cli', 'ping']);
  // vts itself: its image's HEALTHCHECK, unless compose sets one
  const own = vts.healthcheck !== undefined || runtime.instructions.some((i) => i.keyword === 'HEALTHCHECK');
  assert.ok(own, 'vts has a health check (the image or compose)');
});

test("vts's database URL names the postgres service with its user, password and database", () => {
  const url = String(env(vts).VTS_DATABASE);
  const pg = env(postgres);
  const m = /^postgres(?:ql)?:\/\/([^:@/]+):([^@/]+)@([^:/]+):(\d+)\/([^?]+)$/.exec(url);
  assert.ok(m, `VTS_DATABASE is postgres://user:password@host:port/database: ${url}`);
  const [, user, password, host, port, database] = m;
  assert.equal(host, postgresName, 'the host is the postgres service');
  assert.equal(port, '5432');
  assert.equal(user, pg.POSTGRES_USER);
  assert.equal(database, pg.POSTGRES_DB);
  assert.equal(password, pg.POSTGRES_PASSWORD, 'the same password (the same interpolation) as the postgres service');
  // no default: compose refuses to start without it (a known default password would be used unnoticed)
  assert.match(password!, /^\$\{\w+:\?[^}]+\}$/, 'the password comes from an environment variable that must be set');
});

test('vts is a cluster node on the redis service, with a node id', () => {
  const e = env(vts);
  const help = serveHelp();
  for (const name of ['VTS_CLUSTER', 'VTS_NODE_ID']) assert.ok(help.env.has(name), `${name} is a vts serve variable`);
  assert.match(String(e.VTS_CLUSTER), /^redis:\/\/redis:6379(\/\d+)?$/, 'the cluster URL names the redis service');
  assert.match(String(e.VTS_NODE_ID), /^[A-Za-z0-9_.-]+$/, 'a node id');
});

test('named volumes: declared, each used, vts on the image data dir, PostgreSQL on its data folder', () => {
  const declared = Object.keys(mapAt(compose, 'volumes'));
  const mounts = Object.keys(services).flatMap((name) =>
    list(mapAt(services, name).volumes).map((v) => {
      const [source, target] = v.split(':');
      return { service: name, source: source!, target: target!, named: !/^[./~$]/.test(source!) };
    }),
  );
  for (const m of mounts.filter((x) => x.named)) assert.ok(declared.includes(m.source), `volume ${m.source} (${m.service}) is declared`);
  for (const d of declared) assert.ok(mounts.some((m) => m.source === d), `volume ${d} is used`);
  const dataDir = runtime.instructions.filter((i) => i.keyword === 'VOLUME').flatMap((i) => words(i.args));
  assert.ok(mounts.some((m) => m.service === 'vts' && m.named && dataDir.includes(m.target)), `vts mounts a named volume on ${dataDir.join(', ')}`);
  assert.ok(mounts.some((m) => m.service === postgresName && m.named && m.target === '/var/lib/postgresql/data'), 'PostgreSQL keeps its data in a named volume');
});

test("vts publishes the MP and HTTP ports, each one the image exposes, on the same numbers", () => {
  const exposed = runtime.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => words(i.args));
  const help = serveHelp();
  const published = list(vts.ports).map((p) => {
    const parts = p.split(':');
    assert.equal(parts.length, 2, `ports entry "${p}" is host:container (quoted, as YAML would read 1:1 as a number)`);
    assert.equal(parts[0], parts[1], `${p}: the same number outside, as modules and apps expect the defaults`);
    return parts[1]!;
  });
  for (const p of published) assert.ok(exposed.includes(p), `${p} is exposed by the image`);
  for (const opt of ['--mp-port', '--http-port']) {
    const port = help.defaults.get(opt)!;
    assert.ok(published.includes(port), `the default ${opt} ${port} is published`);
  }
});

test('no secret in compose.yaml', () => {
  const text = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
  for (const m of text.matchAll(/:\/\/[^:/@\s"]+:([^@\s"]+)@/g)) {
    assert.match(m[1]!, /^\$\{/, `a password in a URL comes from the environment: ${m[0]}`);
  }
  for (const name of Object.keys(services)) {
    const service = mapAt(services, name);
    if (service.environment === undefined) continue;
    for (const [key, value] of Object.entries(mapAt(service, 'environment'))) {
      if (/PASSWORD|SECRET|TOKEN/.test(key)) assert.match(String(value), /^\$\{/, `${name}.${key} comes from the environment`);
    }
  }
});
