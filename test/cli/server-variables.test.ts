/**
 * VTS_SERVER and VTS_MP (issue 26): VTS_SERVER is the vts server's URL (`vts exec --server`),
 * VTS_MP a v2 server's host:port (`vts module --mp`, `vts exec --via mp --mp`). The form that
 * belongs to the other one is refused at once, with a line naming the variable and the form it
 * wants; the module still takes an old VTS_SERVER of the host:port form. In this process: the
 * checks come before anything connects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vts } from './admin-helpers.js';

/** Runs `fn` with the given VTS_* variables, and no others. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('VTS_')));
  for (const k of Object.keys(saved)) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(process.env)) if (k.startsWith('VTS_')) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

test("vts module: a URL in VTS_SERVER (vts exec's) or VTS_MP is refused with the form it wants", async () => {
  const fromOld = await withEnv({ VTS_SERVER: 'http://127.0.0.1:6868' }, () => vts(['module', '--log-level', 'silent', '--password', 'x']));
  assert.equal(fromOld.code, 1);
  assert.match(fromOld.stderr, /^vts: VTS_SERVER is a URL \(VTS_SERVER is vts exec's server URL\): the module takes its v2 \(MP\) server as host:port, e\.g\. --mp 127\.0\.0\.1:6867 or VTS_MP=127\.0\.0\.1:6867 \(VTS_ERR_CONFIG\)\n$/);
  const fromMp = await withEnv({ VTS_MP: 'https://vts.example' }, () => vts(['module', '--log-level', 'silent', '--password', 'x']));
  assert.match(fromMp.stderr, /^vts: VTS_MP is a URL: the module takes its v2 \(MP\) server as host:port/);
  // VTS_MP wins over VTS_SERVER: a URL there (for vts exec) does not matter then
  const both = await withEnv({ VTS_MP: 'http://x', VTS_SERVER: 'http://127.0.0.1:6868' }, () => vts(['module', '--log-level', 'silent', '--password', 'x']));
  assert.match(both.stderr, /^vts: VTS_MP is a URL/);
});

test("vts exec: host:port in VTS_SERVER (the module's old form) is refused with the form it wants", async () => {
  const r = await withEnv({ VTS_SERVER: '127.0.0.1:6867' }, () => vts(['exec', 'DEMO1', 'stat', '--user', 'demo', '--password', 'demo-pass']));
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'vts: invalid input: VTS_SERVER must be the vts server\'s URL, e.g. http://127.0.0.1:6868 (its HTTP API), not "127.0.0.1:6867"; a v2 (MP) server is host:port with --via mp --mp (VTS_MP) (VTS_ERR_INVALID_INPUT)\n',
  );
});
