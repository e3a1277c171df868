/**
 * v3 notifications and events on the v2 side (src/core/mqtt/notify.ts, docs/protocol/mqtt-v3.md §5, §6, §11.6):
 * info/alert texts MP-encoded (LF and CR LF → CR, `,` → `;`, already encoded ≤3.3.004 texts
 * unchanged), error payloads kept with their commas (line breaks → CR); the historical record of a
 * `notify/data` payload (first line only, malformed → null, the age as time difference with a
 * positive age clamped to 0); which event names are passed on; the `P` data of an event.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataRecord, EVENT_HISTORY_TYPE, eventName, eventNotificationData, notificationData } from '../../src/core/mqtt/notify.js';

test('info and alert: P I/A with the text MP-encoded', () => {
  assert.equal(notificationData('info', 'Charge stopped'), 'ICharge stopped');
  assert.equal(
    notificationData('info', 'Charging Stopped, Range: 291km\nSOC: 90.0%, 12.3kWh'),
    'ICharging Stopped; Range: 291km\rSOC: 90.0%; 12.3kWh',
  );
  assert.equal(notificationData('info', 'a\r\nb\r\n\r\nc,d\n'), 'Ia\rb\r\rc;d\r');
  assert.equal(notificationData('alert', 'Vehicle alarm is sounding!'), 'AVehicle alarm is sounding!');
  assert.equal(notificationData('alert', '12V battery critical, 11.2V\r\nCheck, please'), 'A12V battery critical; 11.2V\rCheck; please');
  // ≤3.3.004 sent MP-encoded texts: encoding them again changes nothing
  assert.equal(notificationData('info', 'a; b\rc'), 'Ia; b\rc');
  assert.equal(notificationData('info', ''), 'I');
  assert.equal(notificationData('alert', ''), 'A');
});

test('error: P E with the payload kept (commas stay), line breaks as CR', () => {
  assert.equal(notificationData('error', 'RT,12,0'), 'ERT,12,0');
  assert.equal(notificationData('error', 'NL,7,some,data'), 'ENL,7,some,data');
  assert.equal(notificationData('error', 'RT,1,a\nb\r\nc\rd'), 'ERT,1,a\rb\rc\rd');
  assert.equal(notificationData('error', ''), 'E');
});

test('data: the first line of the payload as a historical record, the age as time difference', () => {
  assert.deepEqual(dataRecord('*-LOG-Grid,0,86400,charging,230.1,16.0', -35), {
    type: '*-LOG-Grid',
    recordNumber: 0,
    lifetime: 86400,
    data: 'charging,230.1,16.0',
    timeDiff: -35,
  });
  assert.deepEqual(dataRecord('*-LOG-Trip,12,31536000,a,b\nsecond,line\nthird', -3600), {
    type: '*-LOG-Trip',
    recordNumber: 12,
    lifetime: 31536000,
    data: 'a,b',
    timeDiff: -3600,
  });
  assert.deepEqual(dataRecord('T,1,60,x,y\r\nnext,1,60,z', -1), { type: 'T', recordNumber: 1, lifetime: 60, data: 'x,y', timeDiff: -1 });
  assert.deepEqual(dataRecord('T,1,60,\n', 0), { type: 'T', recordNumber: 1, lifetime: 60, data: '', timeDiff: 0 });
  assert.deepEqual(dataRecord('T,-1,0,x', 0), { type: 'T', recordNumber: -1, lifetime: 0, data: 'x', timeDiff: 0 });
  // a lone CR is not a line break here
  assert.deepEqual(dataRecord('T,1,60,a\rb', -2), { type: 'T', recordNumber: 1, lifetime: 60, data: 'a\rb', timeDiff: -2 });
});

test('data: a positive age is clamped to 0', () => {
  assert.deepEqual(dataRecord('T,1,60,x', 5), { type: 'T', recordNumber: 1, lifetime: 60, data: 'x', timeDiff: 0 });
  assert.deepEqual(dataRecord('T,1,60,x', 1234567890), { type: 'T', recordNumber: 1, lifetime: 60, data: 'x', timeDiff: 0 });
});

test('data: a first line that is not a record is null', () => {
  for (const bad of [
    '',
    'x',
    'T,1,60', // no data field
    'T,1',
    ',1,60,x', // no type
    'T,a,60,x',
    'T,1,6.5,x',
    'T,1,,x',
    'T,,60,x',
    '\nT,1,60,x', // the record is on the second line
    '\r\nT,1,60,x',
    'T,1\n,60,x',
    'T,1234567890123,60,x', // thirteen digits
  ]) {
    assert.equal(dataRecord(bad, -1), null, JSON.stringify(bad));
  }
});

test('eventName: trimmed, no control characters, 1..200 characters (spaces and non-ASCII names allowed)', () => {
  assert.equal(eventName('vehicle.charge.start'), 'vehicle.charge.start');
  assert.equal(eventName('  vehicle.on\n'), 'vehicle.on');
  assert.equal(eventName('\r\nserver.v3.connected\r\n'), 'server.v3.connected');
  assert.equal(eventName('usr.My-Event_1!'), 'usr.My-Event_1!');
  assert.equal(eventName('x'.repeat(200)), 'x'.repeat(200));
  assert.equal(eventName('location.enter.My Home'), 'location.enter.My Home');
  assert.equal(eventName('location.enter.Café'), 'location.enter.Café');
  for (const bad of ['', '   ', '\n', 'x'.repeat(201), 'a\tb', 'a\nb', 'a\u0000b', 'a\u007fb']) {
    assert.equal(eventName(bad), null, JSON.stringify(bad));
  }
});

test('event: P I "Event: <name>" MP-encoded, and the history type', () => {
  assert.equal(eventNotificationData('vehicle.locked'), 'IEvent: vehicle.locked');
  assert.equal(eventNotificationData('notify.info.charge.stopped'), 'IEvent: notify.info.charge.stopped');
  // a name from the topic is not checked by eventName: a comma is still encoded
  assert.equal(eventNotificationData('usr.a,b'), 'IEvent: usr.a;b');
  assert.equal(EVENT_HISTORY_TYPE, '*-Log-Event');
});
