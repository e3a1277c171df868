// Runs the test suite with node's built-in runner through tsx. Node 20's `--test` does not expand
// globs, so the files are collected here: every test/**/*.test.ts, or those whose path contains
// one of the arguments (`npm test -- mp/ store/`).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

function collect(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : collect(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = collect('test')
  .map((f) => relative('.', f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files match');
  process.exit(1);
}
const child = spawn(
  process.execPath,
  // a hung test file fails after 5 minutes instead of stalling the run (and CI); the bound is a
  // guard against hangs, far above what a file takes on a loaded 2-core machine
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...flags, ...files],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
