/**
 * The remembered `/api/status` answer (src/http/api-v2/record-memo.ts) in a cluster: the car is on
 * node B, the answers come from node A, which reads what B stored from the shared database; A's
 * answer follows each change B writes, byte for byte a fresh rendering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, m, roundTrip } from '../mp/helpers.js';
import { renderedStatus } from '../http/status-render.js';
import { skipCluster, startCluster } from './harness.js';

const S1 = '80,K,230,16,charging,standard,350,320,16,123';
const S2 = '70,K,210,16,done,standard,300,280,16,123';
const D1 = '140,8,4,30,40,25,123,12345';
const D2 = '12,0,5,31,41,26,124,12350';

test('node A answers the status of a car on node B: the bytes of a fresh rendering before and after B stores new records', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];
  const car = await c.mp(b, 'C');
  assert.deepEqual(await car.next(), m('Z', '0'));

  /** A's answer once it shows `soc` (B commits in the background), checked against S and D. */
  const answerWith = (soc: string, s: string, d: string, field = 'soc') =>
    eventually(async () => {
      const r = await fetch(a.url('/api/status/CLCAR'));
      const body = await r.text();
      if (r.status !== 200 || (JSON.parse(body) as Record<string, unknown>)[field] !== soc) return undefined;
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.equal(body, renderedStatus(body, s, d));
      return body;
    }, `node A to answer ${field} ${soc}`);

  car.send('S', S1);
  car.send('D', D1);
  await roundTrip(car);
  await answerWith('80', S1, D1);
  await answerWith('80', S1, D1); // again: remembered or rendered anew, the same

  car.send('S', S2);
  await roundTrip(car);
  await answerWith('70', S2, D1);

  car.send('D', D2);
  await roundTrip(car);
  await answerWith('12350', S2, D2, 'odometer');
});
