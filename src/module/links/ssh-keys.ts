/**
 * The keys of the module's SSH server (ssh-link.ts): the clients' public keys from OpenSSH
 * authorized_keys text, the host key (ed25519, generated on first start), and a comparison of
 * secrets that takes the same time whatever they hold.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
import { VtsError } from '../../errors.js';
import { makeFolder } from '../../util/make-folder.js';

const { utils } = ssh2;

/**
 * The public keys of authorized_keys text: one key per line (`type base64 [comment]`); blank lines
 * and `#` comments are skipped, and so are lines with options (`from=…`, `command=…`: not
 * supported, so not silently widened) and keys ssh2 cannot parse.
 */
export function parseAuthorizedKeys(text: string, log?: Logger): ParsedKey[] {
  const keys: ParsedKey[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!/^(ssh-|ecdsa-sha2-|sk-)/.test(line)) {
      log?.warn({ line: i + 1 }, 'authorized_keys: line with options skipped (options are not supported)');
      continue;
    }
    const parsed = utils.parseKey(line);
    const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
    if (!key || key instanceof Error) {
      log?.warn({ line: i + 1, error: key instanceof Error ? key.message : 'no key' }, 'authorized_keys: key not understood');
      continue;
    }
    keys.push(key);
  }
  return keys;
}

/**
 * A new ed25519 key pair in OpenSSH format. ssh2's generator gives, about 3 times in 1000, a pair
 * that its own parser rejects ("Malformed OpenSSH private key"): such a pair is made again.
 */
export function generateEd25519(comment?: string): { private: string; public: string } {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pair = utils.generateKeyPairSync('ed25519', comment === undefined ? {} : { comment });
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
  throw new Error('could not generate a usable ed25519 key pair');
}

/** The host key of `file`, generated (ed25519, mode 0600) when the file does not exist. */
export function loadHostKey(file: string, log?: Logger): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const pair = generateEd25519('vts module host key');
    try {
      makeFolder(dirname(file), 0o700);
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new VtsError('VTS_ERR_DATA_DIR', `cannot create ${dirname(file)} for the SSH host key (${why}): point --state-dir at a folder vts may write`, {
        whole: true,
        cause: e,
      });
    }
    try {
      writeFileSync(file, pair.private, { mode: 0o600, flag: 'wx' });
      text = pair.private;
      log?.info({ file }, 'SSH host key generated');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      text = readFileSync(file, 'utf8'); // made by someone else meanwhile
    }
  }
  const parsed = utils.parseKey(text);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
  if (!key || key instanceof Error || !key.isPrivateKey()) {
    throw new Error(`SSH host key file ${file} does not hold a private key${key instanceof Error ? `: ${key.message}` : ''}`);
  }
  return text;
}
