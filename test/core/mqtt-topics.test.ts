/**
 * The v3 topic tree as the MQTT bridge reads it (src/core/mqtt/topics.ts, docs/protocol/mqtt-v3.md §1.1, §2, §5,
 * §6): metrics with dotted names, notify info/alert/error with one or more subtype levels (and the
 * dotted subtypes of ≤3.3.004), notify data with multi-level subtypes, entry ids and ages (bad ages
 * are not data), the legacy `event` and `event/<a>/<b>…`, command responses, everything else under
 * the prefix (commands, presence, requests, config answers) as `other`, topics not under `ovms/`
 * and empty levels; the bridge's subscription filters (checked with an MQTT 3.1.1 matcher), the
 * prefix and the topic-level check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bridgeFilters, isTopicLevel, parseV3Topic, topicPrefix, type V3Message } from '../../src/core/mqtt/topics.js';

const P = 'ovms/alice/DEMO/';
const at = (message: V3Message) => ({ user: 'alice', vehicle: 'DEMO', message });
const OTHER = at({ kind: 'other' });

/** MQTT 3.1.1 topic matching (§4.7): `+` one level, `#` any number of levels incl. the parent. */
function matches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

test('metric: the levels after metric/ are the dotted name', () => {
  assert.deepEqual(parseV3Topic(P + 'metric/v/b/soc'), at({ kind: 'metric', name: 'v.b.soc' }));
  assert.deepEqual(parseV3Topic(P + 'metric/s/v3/connected'), at({ kind: 'metric', name: 's.v3.connected' }));
  assert.deepEqual(parseV3Topic(P + 'metric/xnl/v/b/range/est'), at({ kind: 'metric', name: 'xnl.v.b.range.est' }));
  assert.deepEqual(parseV3Topic(P + 'metric/single'), at({ kind: 'metric', name: 'single' }));
  assert.deepEqual(parseV3Topic(P + 'metric'), OTHER);
  // the vehicle and user segments as the module wrote them
  assert.deepEqual(parseV3Topic('ovms/bob.smith/my-Car_2/metric/v/p/latitude'), {
    user: 'bob.smith',
    vehicle: 'my-Car_2',
    message: { kind: 'metric', name: 'v.p.latitude' },
  });
});

test('notify info/alert/error: subtype levels dotted (≤3.3.004 dotted subtypes kept)', () => {
  assert.deepEqual(parseV3Topic(P + 'notify/info/charge/stopped'), at({ kind: 'notify', type: 'info', subtype: 'charge.stopped' }));
  assert.deepEqual(parseV3Topic(P + 'notify/info/charge.stopped'), at({ kind: 'notify', type: 'info', subtype: 'charge.stopped' }));
  assert.deepEqual(parseV3Topic(P + 'notify/info/usr/my/script'), at({ kind: 'notify', type: 'info', subtype: 'usr.my.script' }));
  assert.deepEqual(parseV3Topic(P + 'notify/alert/batt/12v/alert'), at({ kind: 'notify', type: 'alert', subtype: 'batt.12v.alert' }));
  assert.deepEqual(parseV3Topic(P + 'notify/alert/alarm/sounding'), at({ kind: 'notify', type: 'alert', subtype: 'alarm.sounding' }));
  assert.deepEqual(parseV3Topic(P + 'notify/error/code'), at({ kind: 'notify', type: 'error', subtype: 'code' }));
  // no subtype, an unknown or differently cased type, `stream` (not on the v3 channel)
  for (const t of ['notify', 'notify/info', 'notify/alert', 'notify/error', 'notify/stream/x', 'notify/INFO/x', 'notify/warning/x']) {
    assert.deepEqual(parseV3Topic(P + t), OTHER, t);
  }
});

test('notify data: <subtype…>/<entryid>/<age>, the subtype may have levels of its own', () => {
  assert.deepEqual(
    parseV3Topic(P + 'notify/data/log/grid/17/-35'),
    at({ kind: 'notify-data', subtype: 'log.grid', entryId: '17', age: -35 }),
  );
  assert.deepEqual(
    parseV3Topic(P + 'notify/data/xrt/log/trip/energy/4711/-3600'),
    at({ kind: 'notify-data', subtype: 'xrt.log.trip.energy', entryId: '4711', age: -3600 }),
  );
  assert.deepEqual(parseV3Topic(P + 'notify/data/log.grid/1/0'), at({ kind: 'notify-data', subtype: 'log.grid', entryId: '1', age: 0 }));
  // a positive age is read here (dataRecord clamps it); ten digits at most, leading zeros allowed
  assert.deepEqual(parseV3Topic(P + 'notify/data/x/2/5'), at({ kind: 'notify-data', subtype: 'x', entryId: '2', age: 5 }));
  assert.deepEqual(
    parseV3Topic(P + 'notify/data/x/2/-1234567890'),
    at({ kind: 'notify-data', subtype: 'x', entryId: '2', age: -1234567890 }),
  );
  assert.deepEqual(parseV3Topic(P + 'notify/data/x/2/-007'), at({ kind: 'notify-data', subtype: 'x', entryId: '2', age: -7 }));
  // the entry id is a level as the module wrote it
  assert.deepEqual(parseV3Topic(P + 'notify/data/x/abc/-1'), at({ kind: 'notify-data', subtype: 'x', entryId: 'abc', age: -1 }));
});

test('notify data: too few levels or a bad age is not data', () => {
  for (const t of [
    'notify/data',
    'notify/data/x',
    'notify/data/17/-35', // no subtype
    'notify/data/x/1/abc',
    'notify/data/x/1/-',
    'notify/data/x/1/1.5',
    'notify/data/x/1/+5',
    'notify/data/x/1/1e3',
    'notify/data/x/1/-12345678901', // eleven digits
    'notify/data/x/1/0x10',
    'notify/data/x/1/ 5',
    'notify/data/x/1/--5',
  ]) {
    assert.deepEqual(parseV3Topic(P + t), OTHER, t);
  }
});

test('event: legacy `event` without a name, `event/<a>/<b>…` dotted', () => {
  assert.deepEqual(parseV3Topic(P + 'event'), at({ kind: 'event' }));
  assert.equal('name' in parseV3Topic(P + 'event')!.message, false);
  assert.deepEqual(parseV3Topic(P + 'event/vehicle/charge/start'), at({ kind: 'event', name: 'vehicle.charge.start' }));
  assert.deepEqual(parseV3Topic(P + 'event/vehicle/on'), at({ kind: 'event', name: 'vehicle.on' }));
  assert.deepEqual(parseV3Topic(P + 'event/app'), at({ kind: 'event', name: 'app' }));
  assert.deepEqual(
    parseV3Topic(P + 'event/notify/info/charge/stopped'),
    at({ kind: 'event', name: 'notify.info.charge.stopped' }),
  );
});

test('client: only client/<cid>/response/<rid> is read; commands, presence, requests, config are other', () => {
  assert.deepEqual(parseV3Topic(P + 'client/vts/response/r1a'), at({ kind: 'response', clientId: 'vts', requestId: 'r1a' }));
  assert.deepEqual(parseV3Topic(P + 'client/other-app/response/42'), at({ kind: 'response', clientId: 'other-app', requestId: '42' }));
  for (const t of [
    'client',
    'client/vts',
    'client/vts/response',
    'client/vts/response/r1/x',
    'client/vts/command/r1',
    'client/vts/active',
    'client/vts/request/metric',
    'client/vts/request/config',
    'client/vts/config/vehicle/id',
    'client/response/r1',
  ]) {
    assert.deepEqual(parseV3Topic(P + t), OTHER, t);
  }
});

test('other heads under the prefix are other', () => {
  for (const t of ['metrics/v/b/soc', 'events', 'notification/info/x', 'status', 'x/y/z', 'Metric/v/b/soc']) {
    assert.deepEqual(parseV3Topic(P + t), OTHER, t);
  }
});

test('not under ovms/<user>/<vehicle>/: null', () => {
  for (const t of [
    '',
    'ovms',
    'ovms/alice',
    'ovms/alice/DEMO',
    'OVMS/alice/DEMO/metric/v/b/soc',
    'ovmsx/alice/DEMO/metric/v/b/soc',
    'custom/alice/DEMO/metric/v/b/soc',
    '/ovms/alice/DEMO/metric/v/b/soc',
    'alice/DEMO/metric/v/b/soc',
  ]) {
    assert.equal(parseV3Topic(t), null, JSON.stringify(t));
  }
});

test('empty levels: an empty user or vehicle is null, an empty level after them is other', () => {
  for (const t of ['ovms//DEMO/metric/v/b/soc', 'ovms/alice//metric/v/b/soc', 'ovms///metric/x', 'ovms//DEMO/event']) {
    assert.equal(parseV3Topic(t), null, t);
  }
  for (const t of [
    '',
    '/metric/x',
    'metric/',
    'metric//soc',
    'metric/v/b/',
    'notify/info/',
    'notify/info//stopped',
    'notify/data/x//-5',
    'notify/data//1/-5',
    'notify/data/x/1/',
    'event/',
    'event//on',
    'client//response/r1',
    'client/vts/response/',
  ]) {
    assert.deepEqual(parseV3Topic(P + t), OTHER, t);
  }
});

test('topicPrefix: ovms/<user>/<vehicle>/, and what parseV3Topic reads back', () => {
  assert.equal(topicPrefix('alice', 'DEMO'), 'ovms/alice/DEMO/');
  assert.equal(topicPrefix('bob.smith', 'my-Car_2'), 'ovms/bob.smith/my-Car_2/');
  assert.deepEqual(parseV3Topic(topicPrefix('bob', 'X1') + 'metric/v/b/soc'), {
    user: 'bob',
    vehicle: 'X1',
    message: { kind: 'metric', name: 'v.b.soc' },
  });
});

test('isTopicLevel: not empty, no separator, no wildcard, no NUL', () => {
  for (const ok of ['vts', 'vts-bridge.1', 'A_b', 'a b', 'café', 'x'.repeat(300), '$SYS', '*']) assert.equal(isTopicLevel(ok), true, ok);
  for (const bad of ['', '/', 'a/b', 'a/', '+', 'a+b', '#', 'a#', 'a\u0000b', '\u0000']) {
    assert.equal(isTopicLevel(bad), false, JSON.stringify(bad));
  }
});

test('bridgeFilters: catch every topic the bridge reads, none it does not', () => {
  const filters = bridgeFilters('vts-1');
  assert.ok(filters.includes('ovms/+/+/client/vts-1/response/+'));
  assert.ok(filters.every((f) => f.startsWith('ovms/+/+/')));
  const read = [
    'metric/v/b/soc',
    'metric/s/v3/connected',
    'notify/info/charge/stopped',
    'notify/alert/alarm/sounding',
    'notify/error/code',
    'notify/data/log/grid/17/-35',
    'event',
    'event/vehicle/on',
    'client/vts-1/response/r1',
  ];
  for (const t of read) {
    const topic = P + t;
    assert.notEqual(parseV3Topic(topic)?.message.kind, 'other', t);
    assert.ok(
      filters.some((f) => matches(f, topic)),
      t,
    );
  }
  // what the module consumes, and another client's responses
  for (const t of [
    'client/vts-1/command/r1',
    'client/vts-1/active',
    'client/vts-1/request/metric',
    'client/vts-1/request/config',
    'client/vts-2/response/r1',
    'client/vts-1/config/vehicle/id',
  ]) {
    assert.equal(
      filters.some((f) => matches(f, P + t)),
      false,
      t,
    );
  }
  assert.equal(
    bridgeFilters('other').some((f) => matches(f, P + 'client/vts-1/response/r1')),
    false,
  );
});

test(
  'bridgeFilters: no topic matches two filters (a broker may deliver it once per filter)',
  () => {
    assert.deepEqual(bridgeFilters('vts-1'), [
      'ovms/+/+/metric/#',
      'ovms/+/+/notify/#',
      'ovms/+/+/event/#',
      'ovms/+/+/client/vts-1/response/+',
    ]);
    const filters = bridgeFilters('vts-1');
    for (const t of ['event', 'event/vehicle/on', 'metric/v/b/soc', 'notify/info/x', 'client/vts-1/response/r1']) {
      assert.equal(filters.filter((f) => matches(f, P + t)).length, 1, t);
    }
  },
);
