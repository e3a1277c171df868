/**
 * The key that seals the ABRP user tokens in the database (docs/abrp.md "The token key"): never in
 * the database itself. Given as 64 hexadecimal digits (`--abrp-token-key`, better
 * VTS_ABRP_TOKEN_KEY), or else the file `abrp-token.key` in the data directory, made at random
 * (mode 0600) the first time. Every node of a cluster needs the same key: give each the same
 * VTS_ABRP_TOKEN_KEY (nodes sharing one data directory share the file).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSealKey, SEAL_KEY_BYTES } from '../core/crypto/sealed-secret.js';
import { VtsError } from '../errors.js';
import { makeFolder } from '../util/make-folder.js';

export const TOKEN_KEY_FILE = 'abrp-token.key';

/** The key of `given` (hex), else of the data directory's key file, made when there is none. */
export function loadTokenKey(given: string | undefined, dataDir: string): Buffer {
  if (given !== undefined && given !== '') {
    const key = parseSealKey(given);
    if (!key) throw new VtsError('VTS_ERR_CONFIG', '--abrp-token-key (VTS_ABRP_TOKEN_KEY) must be 64 hexadecimal digits (openssl rand -hex 32)');
    return key;
  }
  const file = join(dataDir, TOKEN_KEY_FILE);
  try {
    makeFolder(dataDir);
    // made once: of two processes making it at once, one writes it and the other reads it
    writeFileSync(file, `${randomBytes(SEAL_KEY_BYTES).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new VtsError('VTS_ERR_DATA_DIR', `cannot write ${file}: ${(err as Error).message}`);
  }
  const key = parseSealKey(readFileSync(file, 'utf8'));
  if (!key) throw new VtsError('VTS_ERR_CONFIG', `${file} does not hold a key of 64 hexadecimal digits`);
  return key;
}
