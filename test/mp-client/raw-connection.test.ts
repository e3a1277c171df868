/** rawConnect: a bare line connection for wire-level tests. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMpClientError, rawConnect } from '../../src/mp-client/mp-client.js';
import { digestBase64 } from '../../src/core/crypto/digest.js';
import { startFakeServer } from './fake-server.js';

test('a garbage welcome line: the server closes, closed resolves', async (t) => {
  const server = await startFakeServer();
  t.after(() => server.close());
  const raw = await rawConnect('127.0.0.1', server.port);
  raw.sendLine('hello');
  const info = await raw.closed;
  assert.equal(info.byClient, false);
  assert.equal(raw.isClosed, true);
  assert.deepEqual(server.welcomes, ['hello']);
  await assert.rejects(raw.next(), (err: unknown) => isMpClientError(err, 'MP_CLOSED'));
});

test('a hand-made welcome line gets the reply line; arbitrary bytes can be written', async (t) => {
  const server = await startFakeServer({ serverToken: 'abcdefghijklmnopqrstuv' });
  t.after(() => server.close());
  const raw = await rawConnect('127.0.0.1', server.port);
  t.after(() => raw.close());
  const token = '0123456789ABCDEFGHIJKL';
  // Written in two pieces, the second with a bare LF.
  raw.write(`MP-A 0 ${token} `);
  raw.write(Buffer.from(`${digestBase64('NETPASS', token)} DEMO1\n`));
  assert.equal(await raw.next(), 'MP-S 0 abcdefghijklmnopqrstuv iLI5YsbubZz2pvXTjR9l9A==');
});

test('waitFor on raw lines with a RegExp; collect; client close', async (t) => {
  const server = await startFakeServer({ serverToken: 'abcdefghijklmnopqrstuv', greet: ['Z0', 'T1'] });
  t.after(() => server.close());
  const raw = await rawConnect('127.0.0.1', server.port);
  const token = '0123456789ABCDEFGHIJKL';
  raw.sendLine(`MP-A 0 ${token} ${digestBase64('NETPASS', token)} DEMO1`);
  assert.match(await raw.waitFor(/^MP-S 0 /), /iLI5YsbubZz2pvXTjR9l9A==$/);
  const rest = await raw.collect(50);
  assert.equal(rest.length, 2); // two encrypted lines
  assert.equal((await raw.close()).byClient, true);
});

test('rawConnect to a closed port rejects with MP_CONNECT_FAILED', async () => {
  const server = await startFakeServer();
  const port = server.port;
  await server.close();
  await assert.rejects(rawConnect('127.0.0.1', port), (err: unknown) => isMpClientError(err, 'MP_CONNECT_FAILED'));
});
