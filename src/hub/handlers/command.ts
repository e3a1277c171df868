/** `C` commands from apps and batch clients (mp-protocol.md §11.1). */
import { responseData } from '../../core/commands/shell-map.js';
import { commandFunction, commandParams, encodeText, failureResponse, SERVER_FUNCTIONS } from '../../core/mp/command.js';
import { isVtsError } from '../../errors.js';
import type { Handler } from './port.js';
import type { HubPort } from './port.js';
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
 * Queues the sender on the car connection and forwards the message unchanged. A vehicle that is
 * only on the v3 link runs the command there as a console command (mqtt-v3.md §11.7) and the sender
 * gets the `c` record built from its output. A car that is not connected gets nothing; the sender
 * gets `c<fn>,1,Vehicle not connected` at once (REF stays silent). For a paranoid command the
 * function is unknown (`fn` null): no reply can be built, and the v3 link cannot carry it.
 */
export function routeCommand(
  hub: HubPort,
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
  if (code === 'C' && fn !== null && link.v3) {
    const cmd = { code: fn, params: commandParams(data) };
    link.v3.run(cmd, hub.options.v3CommandTimeoutMs ?? 30_000).then(
      (outcome) => hub.deliver(peer, 'c', responseData(cmd, outcome, encodeText)),
      (err: unknown) => {
        const text = isVtsError(err, 'VTS_ERR_COMMAND_TIMEOUT') ? 'Command timed out' : NOT_CONNECTED_TEXT;
        hub.deliver(peer, 'c', failureResponse(fn, text));
      },
    );
    return;
  }
  if (code === 'C') hub.deliver(peer, 'c', failureResponse(fn ?? (data.split(',', 1)[0] ?? ''), NOT_CONNECTED_TEXT));
}
