/**
 * `/api/status` answers from a remembered rendering while its records and the second are the same
 * (src/http/api-v2/record-memo.ts): the answer's bytes (status line, headers in their order, body)
 * are those of a fresh rendering, before and after each change of the records, and as the ages
 * advance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { roundTrip } from '../mp/helpers.js';
import { httpHarness } from './helpers.js';
import { renderedStatus } from './status-render.js';

const S1 = '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95';
const S2 = '70,K,210,16,done,standard,300,280,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95';
const D1 = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
const D2 = '12,0,5,31,41,26,124,12350,0,0,21,2,1,1,12.4,4,12.6,16,35,1.1,22';

/** One GET on a connection of its own: the answer's head lines as sent, and its body. */
function rawGet(port: number, path: string, cookie: string): Promise<{ head: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\n\r\n`);
    let got = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1').split('\r\n');
      const length = Number(/^content-length: (\d+)$/im.exec(head.join('\n'))?.[1]);
      if (got.length < end + 4 + length) return;
      socket.destroy();
      resolve({ head, body: got.subarray(end + 4).toString('utf8') });
    });
  });
}

/** The head of a status answer as vts has always sent it, but for the clock. */
function assertHead(head: string[], body: string): void {
  const date = /^date: (.*)$/.exec(head[2] ?? '')?.[1] ?? '';
  assert.match(date, /^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  assert.deepEqual(head, [
    'HTTP/1.1 200 Ok',
    'content-type: application/json',
    `date: ${date}`,
    `expires: ${date}`,
    'cache-control: max-age=0',
    'access-control-allow-origin: *',
    `content-length: ${Buffer.byteLength(body)}`,
    'Connection: keep-alive',
    'Keep-Alive: timeout=30',
  ]);
}

test('the status answer: the bytes of a fresh rendering before and after its records change, and as the seconds pass', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  const cookie = (await h.login()).split(';')[0]!;
  const answer = async (s: string, d: string): Promise<string> => {
    const r = await rawGet(h.httpPort, '/api/status/TESTCAR', cookie);
    assertHead(r.head, r.body);
    assert.equal(r.body, renderedStatus(r.body, s, d));
    return r.body;
  };

  car.send('S', S1);
  car.send('D', D1);
  await roundTrip(car);
  const first = await answer(S1, D1);
  assert.equal(JSON.parse(first).soc, '80');
  for (let k = 0; k < 5; k++) await answer(S1, D1); // remembered (in the same second) or rendered again: the same bytes

  car.send('S', S2);
  await roundTrip(car);
  const second = await answer(S2, D1);
  assert.equal(JSON.parse(second).soc, '70');
  assert.equal(JSON.parse(second).chargestate, 'done');

  car.send('D', D2);
  await roundTrip(car);
  const third = await answer(S2, D2);
  assert.equal(JSON.parse(third).odometer, '12350');

  // the ages count on: the next second is rendered anew
  const before = JSON.parse(await answer(S2, D2)).m_msgage_s as number;
  await new Promise((r) => setTimeout(r, 1100));
  const after = JSON.parse(await answer(S2, D2)).m_msgage_s as number;
  assert.ok(after > before, `m_msgage_s ${before} → ${after}`);

  // a vehicle that is no longer the caller's is refused, remembered answer or not
  await h.t.server.store.removeVehicle('TESTCAR');
  const gone = await h.request('/api/status/TESTCAR', { headers: { cookie } });
  assert.equal(gone.status, 403);
});

test('charge, location and tpms follow their records too', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  car.send('S', S1);
  car.send('D', D1);
  car.send('L', '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95');
  await roundTrip(car);
  const get = async (path: string) => JSON.parse((await h.asDemo(path)).body) as Record<string, unknown>;
  assert.equal((await get('/api/charge/TESTCAR')).soc, '80');
  assert.equal((await get('/api/location/TESTCAR')).latitude, '51.5');
  assert.equal((await get('/api/tpms/TESTCAR')).m_msgtime_w, undefined);
  car.send('S', S2);
  car.send('L', '52.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95');
  car.send('W', '206.8,20,206.8,21,210.3,22,210.3,23,1');
  await roundTrip(car);
  assert.equal((await get('/api/charge/TESTCAR')).soc, '70');
  assert.equal((await get('/api/location/TESTCAR')).latitude, '52.5');
  assert.equal(typeof (await get('/api/tpms/TESTCAR')).m_msgtime_w, 'string');
});
