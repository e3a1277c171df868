/**
 * How a test runs the `vts` command of this checkout as a child process: the built
 * dist/cli/main.js when it is newer than every source file (what `npm install`, `npm ci` and
 * scripts/build-if-needed.mjs leave; a process starts on half the CPU that tsx takes), else the
 * sources through tsx. Either runs the same code.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
export const SRC_MAIN = join(ROOT, 'src', 'cli', 'main.ts');
export const DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js');
/** tsx's loader, as an absolute URL (a child may run in another folder). */
export const TSX = import.meta.resolve('tsx');

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
    const p = join(dir, e.name);
    return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);
}

let fresh: boolean | undefined;
/** Whether dist/ is built from the sources as they are now. */
export function distIsFresh(): boolean {
  if (fresh === undefined) {
    const built = existsSync(DIST_MAIN) ? statSync(DIST_MAIN).mtimeMs : 0;
    fresh = built > 0 && newest(join(ROOT, 'src')) <= built && statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs <= built;
  }
  return fresh;
}

/** The words that start `vts` (node and its arguments before vts's own). */
export function vtsWords(): string[] {
  return distIsFresh() ? [process.execPath, DIST_MAIN] : [process.execPath, '--import', TSX, SRC_MAIN];
}
