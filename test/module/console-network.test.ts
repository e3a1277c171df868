/**
 * Network and server commands (docs/protocol/module-console.md §7): `server v2|v3` status in its two-line form
 * or "not started", start/stop through the module's link services, `update` requests,
 * `location status|list` from the position metrics and the `locations` config, `wifi status`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('server v2 / server v2 status: State line and the indented detail', async () => {
  const { run } = setup();
  const expected = 'State: Connected\n       OVMS V2 login successful, and crypto channel established\n';
  assert.equal(await run('server v2'), expected);
  assert.equal(await run('server v2 status'), expected);
});

test('server v3 not started; start launches it, a second start is refused', async () => {
  const { run, services } = setup();
  assert.equal(await run('server v3 status'), 'OVMS v3 server has not been started\n');
  assert.equal(await run('server v3 start'), 'Launching OVMS Server V3 connection (oscv3)\n');
  assert.equal(services.links.v3.started, true);
  assert.equal(await run('server v3 start'), 'OVMS v3 server has already been started\n');
  assert.equal(await run('server v3'), 'State: Connecting\n       Connecting...\n');
});

test('server v2 stop, and stop when not running', async () => {
  const { run, services } = setup();
  assert.equal(await run('server v2 stop'), 'Stopping OVMS Server V2 connection (oscv2)\n');
  assert.equal(services.links.v2.started, false);
  assert.equal(await run('server v2 stop'), 'OVMS v2 server has not been started\n');
  assert.equal(await run('server v2'), 'OVMS v2 server has not been started\n');
});

test('server update requests reach the module; v2 has no priority update', async () => {
  const { run, services } = setup();
  assert.equal(await run('server v2 update all'), 'Server V2 data update for all metrics has been scheduled\n');
  assert.equal(await run('server v3 update modified'), 'Server V3 data update for modified metrics has been scheduled\n');
  assert.equal(await run('server v3 update priority'), 'Server V3 data update for priority metrics has been scheduled\n');
  assert.deepEqual(services.updates, ['v2 all', 'v3 modified', 'v3 priority']);
  assert.equal(await run('server v2 update priority'), 'Unrecognised command\nUsage: server v2 update all|modified\n');
  assert.equal(await run('server v2 update'), 'Subcommand required\nUsage: server v2 update all|modified\n');
});

test('location status: position, GPS quality, parked line, defined and active locations', async () => {
  const { run, services } = setup();
  services.config.set('locations', 'home', '22.2809,114.1606,100');
  services.config.set('locations', 'work', '22.3,114.2,50');
  const expected =
    'Currently at 22.280868,114.160598 (GPS lock, 12 satellites, reliable)\n' +
    'Vehicle is parked at 22.280868,114.160598\n' +
    'There are 2 locations defined\n' +
    'Active locations: home\n';
  assert.equal(await run('location status'), expected);
  assert.equal(await run('location'), expected);
});

test('location status: without GPS lock, driving, one or no location', async () => {
  const { run, services, vehicle } = setup();
  vehicle.metrics.set('v.p.gpslock', false, vehicle.time);
  vehicle.metrics.set('v.p.satcount', 1, vehicle.time);
  vehicle.metrics.set('v.e.on', true, vehicle.time);
  assert.equal(
    await run('location'),
    'Currently at 22.280868,114.160598 (without GPS lock, 1 satellite, unreliable)\nThere are 0 locations defined\nNo active locations\n',
  );
  services.config.set('locations', 'far', '0,0,10');
  assert.match(await run('location'), /\nThere is 1 location defined\nNo active locations\n$/);
});

test('location list: one line per location, * for the active ones', async () => {
  const { run, services } = setup();
  services.config.set('locations', 'home', '22.2809,114.1606,100');
  services.config.set('locations', 'work', '22.3,114.2,50');
  assert.equal(await run('location list'), '*home: 22.280900,114.160600 (100m)\nwork: 22.300000,114.200000 (50m)\n');
});

test('wifi status: the STA block from the network metrics, or disconnected', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('wifi status'), 'Power: on\nMode: Client mode\nSTA disconnected\n');
  vehicle.metrics.set('m.net.wifi.network', 'HomeNet', vehicle.time);
  vehicle.metrics.set('m.net.wifi.sq', -61.5, vehicle.time);
  const out = await run('wifi status');
  assert.match(out, /^Power: on\nMode: Client mode\nSTA SSID: HomeNet \(-61\.5 dBm\) \[connected\]\n/);
  assert.match(out, /\n {2}MAC: ([0-9a-f]{2}:){5}[0-9a-f]{2}\n {2}IP: \d+\.\d+\.\d+\.\d+\/255\.255\.255\.0\n {2}GW: [\d.]+\n {2}AP: [0-9a-f:]{17}\n$/);
});
