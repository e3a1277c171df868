/**
 * `/metrics` of `vts serve --workers 2`: whichever worker a scrape reaches answers the sum of both
 * (the primary aggregates them), so counters do not jump between workers' values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { listening, serveProcess } from '../cli/serve-process.js';
import { needs, redis, requireServices } from '../support/services.js';

const skip = await needs(redis);
const TOKEN = 'workers-metrics-token-0123456789';

test('a scrape of --workers 2 counts the requests of both workers', { skip }, async (t) => {
  await requireServices(redis);
  const dir = mkdtempSync(join(tmpdir(), 'vts-workers-metrics-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const prefix = `vtstest${randomBytes(4).toString('hex')}`;
  const run = serveProcess(
    ['--workers', '2', '--cluster', 'redis://127.0.0.1:6379', '--cluster-prefix', prefix, '--data-dir', dir, '--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off', '--log-level', 'debug'],
    { env: { VTS_METRICS_TOKEN: TOKEN } },
  );
  t.after(() => run.child.kill('SIGKILL'));
  const ports = await listening(run);
  const base = `http://127.0.0.1:${ports.http as number}`;

  // new connections each time: the primary hands them to the workers in turn
  const pids = new Set<number>();
  for (let k = 0; k < 20; k++) {
    const res = await fetch(`${base}/health`, { headers: { connection: 'close' } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  // the access log says which worker answered each: both did
  for (let k = 0; k < 100 && pids.size < 2; k++) {
    for (const l of run.stderr) {
      const line = JSON.parse(l) as { msg?: string; pid?: number; path?: string };
      if (line.msg === 'HTTP request' && line.path === '/health' && line.pid) pids.add(line.pid);
    }
    if (pids.size < 2) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(pids.size, 2, 'both workers answered /health');

  const health = async (): Promise<number> => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } });
    assert.equal(res.status, 200);
    const text = await res.text();
    const m = /^vts_http_requests_total\{group="health",status="200"\} (\d+)$/m.exec(text);
    assert.ok(m, text.slice(0, 2000));
    assert.match(text, /^vts_push_outbox\{channel="apns"\} 0$/m, 'the shared outbox is not summed');
    return Number(m[1]);
  };
  // every scrape, on either worker, sees all 20
  for (let k = 0; k < 4; k++) assert.equal(await health(), 20);
});
