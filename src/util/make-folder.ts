/** `mkdir -p` that cannot spin: for the data dir (store) and the emulator's state dir. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `dir` and its missing parents with `mode`; a `dir` that exists already (as anything) is
 * left as it is, for the caller to check. Not `mkdirSync(dir, { recursive: true })`: Node's loops
 * forever (100 % CPU, signals never handled) when a parent exists but cannot hold a new folder and
 * answers ENOENT, as /proc does (`--data-dir /proc/x`) and a broken symbolic link. Here a parent
 * that exists and still gives ENOENT ends the walk with that error.
 */
export function makeFolder(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    if (code === 'EEXIST') return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    makeFolder(parent, mode);
    mkdirSync(dir, { mode }); // ENOENT again: the parent takes no folder; that error is final
  }
}
