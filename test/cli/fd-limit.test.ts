/** The open-files limit as vts reads and reports it at start (src/server/fd-limit.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFdLimit, readFdLimit, reportFdLimit, type FdLimit } from '../../src/server/fd-limit.js';
import { createLogger } from '../../src/util/log.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

test('parses the Max open files line of /proc/<pid>/limits', () => {
  assert.deepEqual(parseFdLimit(LIMITS), { soft: 1024, hard: 524288 });
  assert.deepEqual(parseFdLimit(LIMITS.replace('1024                 524288', 'unlimited            unlimited')), { soft: null, hard: null });
  assert.equal(parseFdLimit('nothing here'), undefined);
  assert.equal(readFdLimit('/nonexistent/limits'), undefined);
});

test('this process runs with its soft limit at the hard limit (node raised it at start)', (t) => {
  const own = readFdLimit();
  if (!own) return t.skip('no /proc/self/limits here');
  assert.equal(own.soft, own.hard);
});

test('reports: info when fine, a warning with what to do when low or not raised', () => {
  const report = (limit: FdLimit): { level: number; msg: string } => {
    const lines: string[] = [];
    reportFdLimit(createLogger('info', { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream), limit);
    assert.equal(lines.length, 1);
    return JSON.parse(lines[0]!) as { level: number; msg: string };
  };
  assert.equal(report({ soft: 65536, hard: 65536 }).level, 30);
  assert.equal(report({ soft: null, hard: null }).level, 30);
  const low = report({ soft: 1024, hard: 1024 });
  assert.equal(low.level, 40);
  assert.match(low.msg, /LimitNOFILE=/);
  const notRaised = report({ soft: 1024, hard: 524288 });
  assert.equal(notRaised.level, 40);
  assert.match(notRaised.msg, /ulimit -n 524288/);
});
