/**
 * `--log-format json|pretty` (issue 17): JSON lines by default when stderr is not a terminal, one
 * readable line each with `pretty`, the same redaction in both, and a wrong value refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { prettyLine } from '../../src/util/log-pretty.js';
import { FREE_PORTS, exitCode, listening, serveProcess } from './serve-process.js';
import { spawnVts } from './spawn-helpers.js';

function capture(format: 'json' | 'pretty'): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      cb();
    },
  });
  return { lines, log: createLogger('debug', sink, format) };
}

test('pretty: time, level, message, then the fields; secrets redacted as in JSON', () => {
  const pretty = capture('pretty');
  const json = capture('json');
  for (const { log } of [pretty, json]) {
    log.info({ vehicle: 'DEMO1', ports: { mp: 6867 }, password: 'hunter2', nested: { token: 'abc' } }, 'car logged in');
    log.error({ err: new Error('boom') }, 'it failed');
  }
  assert.equal(json.lines.length, 2);
  const first = JSON.parse(json.lines[0]!) as Record<string, unknown>;
  assert.equal(first.msg, 'car logged in');
  assert.equal(first.password, '[redacted]');
  assert.match(pretty.lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}car logged in vehicle=DEMO1 ports=\{"mp":6867\} password=\[redacted\] nested=\{"token":"\[redacted\]"\}$/);
  assert.match(pretty.lines[1]!, /^\d\d:\d\d:\d\d\.\d{3} ERROR it failed err=boom$/);
  assert.match(pretty.lines[2]!, /^ {4}Error: boom$/); // the stack, indented, on its own lines
  assert.ok(!pretty.lines.join('\n').includes('hunter2'));
  assert.equal(prettyLine('not json', false), 'not json');
});

test('vts serve: JSON lines on a pipe by default, readable lines with --log-format pretty, a wrong value refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-logformat-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const format of [undefined, 'json', 'pretty'] as const) {
    const r = serveProcess([...FREE_PORTS, '--data-dir', join(dir, 'data'), ...(format ? ['--log-format', format] : [])]);
    await listening(r);
    r.child.kill('SIGTERM');
    assert.equal(await exitCode(r), 0);
    const said = r.stderr.find((l) => l.includes('vts listening'));
    assert.ok(said, r.stderr.join('\n'));
    if (format === 'pretty') {
      assert.match(said, /^\d\d:\d\d:\d\d\.\d{3} INFO {2}vts listening /);
      assert.ok(r.stderr.every((l) => !l.startsWith('{')), 'no JSON line');
    } else {
      for (const l of r.stderr) assert.doesNotThrow(() => JSON.parse(l), l);
    }
  }
  const wrong = await spawnVts(['serve', '--log-format', 'xml', '--data-dir', join(dir, 'data')]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^vts: option '--log-format <format>' argument 'xml' is invalid\. must be one of json, pretty\n/);
});
