/** `C` commands from apps and batch clients (mp-protocol.md §11.1). */
import { commandFunction, failureResponse, SERVER_FUNCTIONS } from '../../core/mp/command.js';
import type { Handler } from '../dispatch.js';
import type { Hub } from '../hub.js';
import type { Peer } from '../peer.js';
import type { VehicleLink } from '../vehicle-link.js';
import { answerServerCommand } from './server-commands.js';

export const NOT_CONNECTED_TEXT = 'Vehicle not connected';

export const handleCommand: Handler = (hub, peer, link, data) => {
  const fn = commandFunction(data);
  if (fn !== null && SERVER_FUNCTIONS.has(fn)) return answerServerCommand(hub, peer, link, fn, data);
  routeCommand(hub, peer, link, 'C', data, fn);
};

/**
 * Queues the sender on the car connection and forwards the message unchanged. A car that is not
 * connected gets nothing; the sender gets `c<fn>,1,Vehicle not connected` at once (REF stays
 * silent). For a paranoid command the function is unknown (`fn` null): no reply can be built.
 */
export function routeCommand(
  hub: Hub,
  peer: Peer,
  link: VehicleLink,
  code: string,
  data: string,
  fn: number | null,
): void {
  const car = link.car;
  if (car) {
    link.commands.push(peer);
    car.send(code, data);
    return;
  }
  if (code === 'C') peer.send('c', failureResponse(fn ?? (data.split(',', 1)[0] ?? ''), NOT_CONNECTED_TEXT));
}
