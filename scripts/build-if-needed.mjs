// Runs `tsc` when dist/ is missing or older than any file under src/ (used by `npm start`).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const marker = 'dist/cli/main.js';
const stale = !existsSync(marker) || newest('src') > statSync(marker).mtimeMs
  || statSync('tsconfig.build.json').mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  process.stderr.write('vts: building dist/ (tsc)...\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
