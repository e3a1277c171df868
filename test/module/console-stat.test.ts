/**
 * `stat` in its two shapes (docs/protocol/module-console.md §4.1): `Not charging` with the SOC/range/ODO/CAC/SOH
 * lines (each optional line only when its metric is defined), and, with the charge port open and
 * a charge state, the mode/state line, the voltage/current and range-gain line, the remaining
 * times and energy sums; user units for distances. Also `stat trip` (§4.2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

test('not charging: the DEMO vehicle at rest', async () => {
  const { run } = setup();
  assert.equal(
    await run('stat'),
    'Not charging\nSOC: 50.0%\nIdeal range: 200km\nEst. range: 160km\nODO: 100000.0km\nCAC: 160.0Ah\nSOH: 100%\n',
  );
});

test('not charging: fixed precision (SOC, ODO, CAC one decimal; ranges and SOH none)', async () => {
  const { run, vehicle } = setup();
  const m = vehicle.metrics;
  m.set('v.b.soc', 64.46, vehicle.time);
  m.set('v.b.range.ideal', 231.4, vehicle.time);
  m.set('v.b.range.est', 187.6, vehicle.time);
  m.set('v.p.odometer', 48211.44, vehicle.time);
  m.set('v.b.cac', 118.24, vehicle.time);
  m.set('v.b.soh', 95.7, vehicle.time);
  assert.equal(
    await run('stat'),
    'Not charging\nSOC: 64.5%\nIdeal range: 231km\nEst. range: 188km\nODO: 48211.4km\nCAC: 118.2Ah\nSOH: 96%\n',
  );
});

test('optional lines are left out when their metric has no value; SOC shows - then', async () => {
  const { run, vehicle } = setup();
  for (const name of ['v.b.soc', 'v.b.range.ideal', 'v.b.range.est', 'v.p.odometer', 'v.b.cac', 'v.b.soh']) vehicle.metrics.clear(name);
  assert.equal(await run('stat'), 'Not charging\nSOC: -\n');
});

test('a charge state with the port closed is still "Not charging"', async () => {
  const { run, vehicle } = setup();
  vehicle.metrics.set('v.c.state', 'charging', vehicle.time);
  assert.match(await run('stat'), /^Not charging\n/);
});

test('charging: mode - state, V/A with range gain, times, energy, then the battery lines', async () => {
  const { run, vehicle } = setup();
  await run('charge start');
  const m = vehicle.metrics;
  const set = (name: string, v: number | string): void => void m.set(name, v, vehicle.time);
  set('v.c.voltage', 230.1);
  set('v.c.current', 16);
  set('v.b.range.speed', 41.53);
  set('v.c.duration.full', 185);
  set('v.c.duration.soc', 100);
  set('v.c.limit.soc', 80);
  set('v.c.duration.range', 7);
  set('v.c.limit.range', 300);
  set('v.c.kwh.grid', 5.24);
  set('v.c.kwh', 4.66);
  set('v.b.soc', 58.3);
  assert.equal(
    await run('stat'),
    'Standard - Charging\n230.1V/16.0A 41.5km/h\nFull: 3:05h\n80%: 1:40h\n300km: 0:07h\n' +
      'Drawn: 5.2kWh\nCharged: 4.7kWh\n' +
      'SOC: 58.3%\nIdeal range: 200km\nEst. range: 160km\nODO: 100000.0km\nCAC: 160.0Ah\nSOH: 100%\n',
  );
});

test('charging without range gain: the V/A line keeps its trailing space; no mode drops the dash', async () => {
  const { run, vehicle } = setup();
  await run('charge start');
  vehicle.metrics.clear('v.c.mode');
  const out = await run('stat');
  assert.match(out, /^Charging\n220\.0V\/32\.0A \nSOC: 50\.0%\n/);
});

test('charging: limits without value print SOC/Range; zero durations are left out', async () => {
  const { run, vehicle } = setup();
  await run('charge start');
  vehicle.metrics.set('v.c.duration.soc', 30, vehicle.time);
  vehicle.metrics.set('v.c.duration.range', 61, vehicle.time);
  vehicle.metrics.set('v.c.duration.full', 0, vehicle.time);
  assert.match(await run('stat'), /^Standard - Charging\n220\.0V\/32\.0A \nSOC: 0:30h\nRange: 1:01h\nSOC: 50\.0%\n/);
});

test('state names: done and stopped hide the details; others map or stay raw', async () => {
  const { run, vehicle } = setup();
  await run('charge start');
  const first = async (state: string, mode = 'standard'): Promise<string> => {
    vehicle.metrics.set('v.c.state', state, vehicle.time);
    vehicle.metrics.set('v.c.mode', mode, vehicle.time);
    return (await run('stat')).split('\n').slice(0, 2).join('|');
  };
  assert.equal(await first('done'), 'Standard - Charge Done|SOC: 50.0%');
  assert.equal(await first('stopped', 'range'), 'Range - Charge Stopped|SOC: 50.0%');
  assert.equal(await first('topoff', 'storage'), 'Storage - Topping off|220.0V/32.0A ');
  assert.equal(await first('heating', 'performance'), 'Performance - Charging, Heating|220.0V/32.0A ');
  assert.equal(await first('timerwait'), 'Standard - Charge Stopped, Timer On|220.0V/32.0A ');
  assert.equal(await first('preparing'), 'Standard - Preparing|220.0V/32.0A ');
  assert.equal(await first('weird', 'eco'), 'eco - weird|220.0V/32.0A ');
});

test("distances follow the user's unit choice (config vehicle units.distance)", async () => {
  const { run, services } = setup();
  services.config.set('vehicle', 'units.distance', 'miles');
  assert.equal(
    await run('stat'),
    'Not charging\nSOC: 50.0%\nIdeal range: 124M\nEst. range: 99M\nODO: 62137.0M\nCAC: 160.0Ah\nSOH: 100%\n',
  );
});

test('stat trip: distance, duration, average speed and altitude since the car was switched on', async () => {
  const { run, vehicle } = setup();
  const m = vehicle.metrics;
  m.set('v.p.altitude', 100, vehicle.time);
  await run('wakeup'); // v.e.on → the trip starts here
  vehicle.time += 3725; // 1:02:05
  m.set('v.p.speed', 40, vehicle.time);
  m.set('v.p.speed', 60, vehicle.time);
  m.set('v.p.trip', 12.34, vehicle.time);
  m.set('v.p.altitude', 88, vehicle.time);
  m.set('v.b.soc', 47.7, vehicle.time);
  m.set('v.b.range.est', 148, vehicle.time);
  m.set('v.b.energy.used', 2.1, vehicle.time);
  m.set('v.b.energy.recd', 0.3, vehicle.time);
  assert.equal(
    await run('stat trip'),
    'Trip 12.3km (1:02:05)  Avg 50km/h Alt -12m\nEnergy 146Wh/km, 14% recd\nSOC -2.3% = 47.7%\nRange -12.0km = 148.0km\n',
  );
});
