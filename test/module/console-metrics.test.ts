/**
 * `metrics list [-cimnpst] [<substring>]`, `metrics get` and `metrics set` (docs/protocol/module-console.md §5):
 * the 40-column layout with glued unit labels, undefined metrics as bare names, the substring
 * filter and `Unrecognised metric name`, the flags (staleness prefix, set-command form, native /
 * metric / imperial units, persistent only, escaped control characters), unit arguments and the
 * `(not found)` / `(not set)` / `(invalid unit)` answers, and setting values of each type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './console-fakes.js';

const row = (name: string, value: string): string => `${name.padEnd(40)} ${value}\n`;

test('list: one line per metric in name order, value with label in a 40-column layout', async () => {
  const { run } = setup();
  const out = await run('metrics list');
  const names = out.split('\n').filter(Boolean).map((l) => l.split(' ')[0] as string);
  assert.deepEqual(names, [...names].sort());
  assert.ok(out.includes(row('v.b.soc', '50%')));
  assert.ok(out.includes(row('v.b.12v.voltage', '12V')));
  assert.ok(out.includes(row('v.p.odometer', '100000km')));
  assert.ok(out.includes(row('v.p.latitude', '22.280868')), 'fixed 6 decimals, no label');
  assert.ok(out.includes(row('v.e.locked', 'no')));
  assert.ok(out.includes(row('v.type', 'DEMO')));
  assert.ok(out.includes(row('v.t.pressure', '206.843,206.843,275.79,275.79kPa')), 'vector: one trailing label');
  assert.ok(out.includes('\nv.vin\n'), 'an undefined metric is its bare name');
});

test('list: a substring filters names; no match gives Unrecognised metric name', async () => {
  const { run } = setup();
  assert.equal(await run('metrics list v.b.s'), row('v.b.soc', '50%') + row('v.b.soh', '100%'));
  assert.equal(await run('metrics list nothing.like.this'), 'Unrecognised metric name\n');
});

test('list: names longer than 40 characters are cut', async () => {
  const { run, vehicle } = setup();
  const long = 'x.custom.' + 'n'.repeat(40);
  vehicle.metrics.set(long, 'v', vehicle.time);
  assert.equal(await run(`metrics list ${long}`), `${long.slice(0, 40)} v\n`);
});

test('list -s: age in seconds (capped at 99) and S when stale, [---] for undefined', async () => {
  const { run, vehicle } = setup();
  vehicle.metrics.set('v.b.temp', 21.5, vehicle.time - 7);
  vehicle.metrics.set('v.b.cac', 160, vehicle.time - 500); // MID class: stale after 120 s
  assert.equal(await run('metrics list -s v.b.temp'), `[07-] ${row('v.b.temp', '21.5°C')}`);
  assert.equal(await run('metrics list -s v.b.cac'), `[99S] ${row('v.b.cac', '160Ah')}`);
  assert.equal(await run('metrics list -s v.vin'), '[---] v.vin\n');
});

test('list -c: `metrics set` lines for defined metrics only, native values without labels', async () => {
  const { run } = setup();
  assert.equal(await run('metrics list -c v.p.'), [
    'metrics set v.p.gpslock yes',
    'metrics set v.p.latitude 22.280868',
    'metrics set v.p.longitude 114.160598',
    'metrics set v.p.odometer 100000',
    'metrics set v.p.satcount 12',
    '',
  ].join('\n'));
});

test('list -i / -m / -n: imperial, metric, native units; by default the user units', async () => {
  const { run, services } = setup();
  assert.equal(await run('metrics list -i v.p.odometer'), row('v.p.odometer', '62137M'));
  assert.equal(await run('metrics list -i v.t.pressure'), row('v.t.pressure', '30,30,40,40psi'));
  services.config.set('vehicle', 'units.distance', 'miles');
  assert.equal(await run('metrics list v.p.odometer'), row('v.p.odometer', '62137M'));
  assert.equal(await run('metrics list -m v.p.odometer'), row('v.p.odometer', '100000km'));
  assert.equal(await run('metrics list -n v.p.odometer'), row('v.p.odometer', '100000km'));
});

test('list -p: persistent metrics only (flags combine)', async () => {
  const { run } = setup();
  const out = await run('metrics list -ps v.b.');
  assert.ok(out.includes('v.b.soc'));
  assert.ok(!out.includes('v.b.range.speed'), 'not persistent');
  assert.match(out, /^\[\d\d[-S]\] /);
});

test('list -t: control characters in strings shown as ^X', async () => {
  const { run, vehicle } = setup();
  vehicle.metrics.set('v.vin', 'AB\tC\x7f', vehicle.time);
  assert.equal(await run('metrics list -t v.vin'), row('v.vin', 'AB^IC^?'));
  assert.equal(await run('metrics list v.vin'), row('v.vin', 'AB\tC\x7f'));
});

test('list: unknown flags or two filters give the usage', async () => {
  const { run } = setup();
  assert.equal(await run('metrics list -x'), 'Usage: metrics list [-cimnpst] [<metric>]\n');
  assert.equal(await run('metrics list a b'), 'Usage: metrics list [-cimnpst] [<metric>]\n');
});

test('list: dates as YYYY-MM-DD HH:MM:SS UTC', async () => {
  const { run, vehicle } = setup();
  vehicle.metrics.set('m.time.utc', vehicle.time, vehicle.time);
  assert.equal(await run('metrics list m.time'), row('m.time.utc', '2026-01-15 09:12:44 UTC'));
  assert.equal(await run('metrics list -c m.time'), `metrics set m.time.utc ${vehicle.time}\n`);
});

test('get: native value with label, or in a requested unit (unique prefixes of unit names)', async () => {
  const { run } = setup();
  assert.equal(await run('metrics get v.b.soc'), '50%\n');
  assert.equal(await run('metrics get v.p.odometer miles'), '62137M\n');
  assert.equal(await run('metrics get v.p.odometer mil'), '62137M\n');
  assert.equal(await run('metrics get v.t.pressure bar'), '2.06843,2.06843,2.7579,2.7579bar\n');
  assert.equal(await run('metrics get v.p.odometer imperial'), '62137M\n');
});

test('get: (not found), (not set), (invalid unit)', async () => {
  const { run } = setup();
  assert.equal(await run('metrics get v.no.such'), '(not found)\n');
  assert.equal(await run('metrics get v.c.kwh'), '(not set)\n');
  assert.equal(await run('metrics get v.b.soc parsecs'), '(invalid unit)\n');
});

test('set: parses by type and stamps the module time; unknown metrics cannot be set', async () => {
  const { run, vehicle } = setup();
  vehicle.time += 10;
  assert.equal(await run('metrics set v.b.soc 64.5'), 'Metric set\n');
  assert.equal(vehicle.metrics.get('v.b.soc'), 64.5);
  assert.equal(vehicle.metrics.updated('v.b.soc'), vehicle.time);
  assert.equal(await run('metrics set v.e.locked yes'), 'Metric set\n');
  assert.equal(vehicle.metrics.get('v.e.locked'), true);
  assert.equal(await run('metrics set v.e.locked no'), 'Metric set\n');
  assert.equal(vehicle.metrics.get('v.e.locked'), false);
  assert.equal(await run('metrics set v.p.satcount 7.9'), 'Metric set\n');
  assert.equal(vehicle.metrics.get('v.p.satcount'), 7);
  assert.equal(await run('metrics set v.vin "WVW ZZZ"'), 'Metric set\n');
  assert.equal(vehicle.metrics.get('v.vin'), 'WVW ZZZ');
  assert.equal(await run('metrics set v.b.c.voltage 3.91,3.92,3.9'), 'Metric set\n');
  assert.deepEqual(vehicle.metrics.get('v.b.c.voltage'), [3.91, 3.92, 3.9]);
  assert.equal(await run('metrics list v.b.c.voltage'), row('v.b.c.voltage', '3.91,3.92,3.9V'));
  assert.equal(await run('metrics set v.no.such 1'), 'Metric could not be set\n');
  assert.equal(vehicle.metrics.has('v.no.such'), false);
});

test('set: with a unit, the value is converted to the native unit', async () => {
  const { run, vehicle } = setup();
  assert.equal(await run('metrics set v.p.odometer 100 miles'), 'Metric set\n');
  assert.ok(Math.abs((vehicle.metrics.num('v.p.odometer') ?? 0) - 160.9347) < 1e-9);
  assert.equal(await run('metrics set v.p.odometer 100 furlongs'), 'Metric could not be set\n');
});
