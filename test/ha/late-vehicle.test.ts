/**
 * A vehicle added while the server runs whose car sends before the announcer's next reading of the
 * vehicle list: the mirror publishes its state first (and tells its facts to an announcer that does
 * not know the vehicle yet), and the reading then announces it all the same.
 */
import { test } from 'node:test';
import { eventually } from '../mp/helpers.js';
import { mqttHarness } from '../mqtt/harness.js';
import { listen, mpCar } from './helpers.js';

test("a vehicle whose car sent before the announcer read it is announced by that reading", async (t) => {
  // the vehicle list is read only when the test says so
  const h = await mqttHarness(t, 'embedded', { stateFlushMs: 20, vehicleResyncMs: 3_600_000 });
  const demo = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#', 'ovms/demo/#']);
  await demo.ready;
  const id = await h.vehicle();
  await mpCar(h, id);
  await eventually(() => demo.last(`ovms/demo/${id}/metric/v/b/soc`), "the car's state, published by the mirror");
  await demo.flushed();
  await h.t.server.vehicleState!.announcer!.resync();
  await eventually(() => demo.last(`homeassistant/device/vts_${id}/config`) || undefined, 'its discovery');
});
