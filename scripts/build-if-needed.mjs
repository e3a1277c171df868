// Builds what is stale (used by `npm install` via `prepare`, and by `npm start`):
// - the server (tsc) when dist/ is missing or older than any file under src/;
// - the web dashboard (type check + Vite) when dist/web/index.html is missing or older than any
//   file under web/ (web/node_modules ignored).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir, skip = new Set()) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p, skip) : statSync(p).mtimeMs);
  }
  return t;
}

const run = (...args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
const tsc = 'node_modules/typescript/bin/tsc';

const marker = 'dist/cli/main.js';
const stale = !existsSync(marker) || newest('src') > statSync(marker).mtimeMs
  || statSync('tsconfig.build.json').mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  process.stderr.write('vts: building dist/ (tsc)...\n');
  run(tsc, '-p', 'tsconfig.build.json');
}

const webMarker = 'dist/web/index.html';
const vite = 'node_modules/vite/bin/vite.js';
const webStale = existsSync('web')
  && (!existsSync(webMarker) || newest('web', new Set(['node_modules'])) > statSync(webMarker).mtimeMs);
if (webStale) {
  if (!existsSync(vite)) {
    // an install without devDependencies: the dashboard is built into the package beforehand
    process.stderr.write('vts: web/ changed but Vite is not installed (npm install --include=dev); dist/web not rebuilt\n');
  } else {
    process.stderr.write('vts: building dist/web (vite)...\n');
    run(tsc, '-p', 'web/tsconfig.json');
    run(tsc, '-p', 'web/tsconfig.node.json');
    run(vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn');
  }
}
