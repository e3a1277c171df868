/**
 * ABRP at shutdown (src/abrp/abrp-service.ts `close`): a send under way to an ABRP that does not
 * answer is cut short (a send may take 10 s, longer than a shutdown may), and being cut short is
 * not recorded as ABRP's failure: the link stays as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { AbrpService } from '../../src/abrp/abrp-service.js';
import { createLogger } from '../../src/util/log.js';
import { freshStore, seed } from '../store/helpers.js';

test('close() cuts a send under way short and records no failure', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store, 'CAR1');
  let asked!: () => void;
  const reached = new Promise<void>((r) => (asked = r));
  const silent = createServer(() => asked());
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const log = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const service = new AbrpService(store, log, () => 1_780_000_000, { apiKey: 'k-123456', url, tokenKey: randomBytes(32), timeoutMs: 600_000, tickMs: 3_600_000 });
  await service.link('CAR1', owner.id, 'token-abcdef-1');
  service.hear({ vehicleId: 'CAR1', ownerId: owner.id, code: 'S', data: '80,K', time: 1_780_000_000, historical: false, source: 'v2' });
  await reached;
  await service.close();
  const link = (await store.abrp.getLink('CAR1'))!;
  assert.deepEqual([link.state, link.lastError, link.failures], ['pending', '', 0]);
});
