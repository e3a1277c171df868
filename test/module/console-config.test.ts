/**
 * `config list|get|set|rm` (docs/protocol/module-console.md §8; `get` is a vts addition) over the module's configuration: the parameter
 * list, a parameter's access line and instances (names only when protected), the answers of set
 * and rm and their effect, and the errors for unknown and read-only parameters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('config list: every parameter padded to 20 and its title', async () => {
  const { run, services } = setup();
  const expected = services.config.params().map((p) => `${p.padEnd(20)} ${services.config.title(p)}\n`).join('');
  assert.equal(await run('config list'), expected);
  assert.match(expected, /^fixed {16}A read-only parameter\n/);
});

test('config list <param>: access line and instances; protected parameters hide values', async () => {
  const { run } = setup();
  assert.equal(await run('config list server.v3'), 'server.v3 (readable writeable)\n  port: 8883\n  server: mqtt.example.org\n');
  assert.equal(await run('config list password'), 'password (protected writeable)\n  module\n  server.v3\n');
  assert.equal(await run('config list fixed'), 'fixed (readable read-only)\n');
  assert.equal(await run('config list nope'), 'nope not found\n');
});

test('config set: stores the value; unknown and read-only parameters are refused', async () => {
  const { run, services } = setup();
  assert.equal(await run('config set vehicle units.distance miles'), 'Parameter has been set.\n');
  assert.equal(services.config.get('vehicle', 'units.distance'), 'miles');
  assert.equal(await run('config set nope a b'), 'Error: parameter not found\n');
  assert.equal(await run('config set fixed a b'), 'Error: parameter is not writeable\n');
  assert.equal(services.config.get('fixed', 'a'), undefined);
  assert.equal(await run('config set vehicle a'), 'Usage: config set <param> <instance> <value>\n');
});

test('config rm: an instance, every instance with *, silence for a missing instance', async () => {
  const { run, services } = setup();
  assert.equal(await run('config rm server.v3 port'), 'Instance port has been removed.\n');
  assert.equal(services.config.get('server.v3', 'port'), undefined);
  assert.equal(await run('config rm server.v3 port'), '');
  assert.equal(await run('config rm server.v3 *'), 'Parameter server.v3 has been removed.\n');
  assert.deepEqual(services.config.instances('server.v3'), []);
  assert.equal(await run('config rm nope x'), 'Error: parameter not found\n');
  assert.equal(await run('config rm fixed x'), 'Error: parameter is not writeable\n');
});

test('config get shows one value; unknown, unset and protected parameters get an error line', async () => {
  const { run } = setup();
  assert.equal(await run('config set vehicle units.distance M'), 'Parameter has been set.\n');
  assert.equal(await run('config get vehicle units.distance'), 'M\n');
  assert.equal(await run('config get vehicle nothing'), 'Error: vehicle nothing is not set\n');
  assert.equal(await run('config get nosuch x'), 'Error: parameter not found\n');
  assert.equal(await run('config get password server.v3'), 'Error: parameter is protected\n');
});
