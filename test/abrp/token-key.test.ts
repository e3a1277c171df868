/**
 * The ABRP token key (src/abrp/token-key.ts): made once in the data directory (mode 0600) and
 * kept across restarts, or given as 64 hex digits; a bad one given to `vts serve` is refused in
 * one line that does not show it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isVtsError } from '../../src/errors.js';
import { loadTokenKey, TOKEN_KEY_FILE } from '../../src/abrp/token-key.js';
import { plainLines, spawnVts, tempFolder } from '../cli/spawn-helpers.js';

test('the key file is made once, private, and read again; a given key wins; a bad one is refused', (t) => {
  const dir = join(tempFolder(t), 'data');
  const first = loadTokenKey(undefined, dir);
  assert.equal(first.length, 32);
  const file = join(dir, TOKEN_KEY_FILE);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(readFileSync(file, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.deepEqual(loadTokenKey(undefined, dir), first, 'the same key after a restart');
  assert.deepEqual(loadTokenKey('ab'.repeat(32), dir), Buffer.from('ab'.repeat(32), 'hex'));
  assert.throws(() => loadTokenKey('not-a-key-1234', dir), (e) => isVtsError(e, 'VTS_ERR_CONFIG') && !e.message.includes('not-a-key-1234'));
});

test('vts serve: a bad VTS_ABRP_TOKEN_KEY is one line that does not show it', async (t) => {
  const dir = tempFolder(t);
  const r = await spawnVts(['serve', '--bind', '127.0.0.1', '--data-dir', join(dir, 'data'), '--http-port', '0', '--mp-port', '0', '--mqtt-port', 'off'], {
    env: { VTS_ABRP_API_KEY: 'operator-key-123456', VTS_ABRP_TOKEN_KEY: 'secret-but-wrong' },
  });
  assert.equal(r.code, 1);
  assert.deepEqual(plainLines(r.stderr), ['vts: invalid configuration: --abrp-token-key (VTS_ABRP_TOKEN_KEY) must be 64 hexadecimal digits (openssl rand -hex 32) (VTS_ERR_CONFIG)']);
  assert.ok(!r.stderr.includes('secret-but-wrong') && !r.stderr.includes('operator-key-123456'));
});
