/**
 * The app of the fleet benchmark in a process of its own (bench/lib/status-poller.ts `pollApart`):
 * a real app is another device, and the load generator's own event loop (thousands of cars, their
 * garbage) must not show in the app's latency. Started with fork(); polls until its parent sends
 * `stop` (or `seconds` have passed), then sends back the PollResults (one per port) and exits.
 */
import { forSeconds, pollStatus } from './status-poller.js';

const [ports, user, password, vehicleId, seconds] = process.argv.slice(2);
let stopped = false;
process.on('message', (m) => {
  if (m === 'stop') stopped = true;
});
const timed = seconds && Number(seconds) > 0 ? forSeconds(Number(seconds)) : () => false;
const result = await pollStatus(ports!.split(',').map(Number), { user: user!, password: password! }, vehicleId!, () => stopped || timed());
process.send!(result, () => process.exit(0));
