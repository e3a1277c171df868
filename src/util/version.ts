/** The vts version; `SERVER_VERSION` is what apps get as `f<version>` after every `F` from a car. */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = readVersion();
export const SERVER_VERSION = `vts-${VERSION}`;
