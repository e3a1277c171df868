/** `c` responses from the car, routed to the command that asked (docs/protocol/mp.md §11.2). */
import { completesCommand } from '../../core/mp/command.js';
import type { Handler } from './port.js';
import type { HubPort } from './port.js';
import type { VehicleLink } from '../links/vehicle-link.js';

export const handleCommandResponse: Handler = (hub, _peer, link, data) => routeResponse(hub, link, 'c', data, false);

/**
 * With an empty queue the response is unsolicited (e.g. the late USSD answer `c41,0,…`) and goes
 * to every client; it never stalls the car's connection (REF's reader dies on it). Otherwise the
 * head of the queue gets it; the multi-line rule decides whether the head stays.
 */
export function routeResponse(hub: HubPort, link: VehicleLink, code: string, data: string, paranoid: boolean): void {
  const target = link.commands.take(paranoid || completesCommand(data));
  if (target === undefined) {
    hub.toClients(link, code, data);
    return;
  }
  if (target === null) return; // the command that asked has stopped waiting
  hub.store.afterCommit(() => target.answer(code, data));
}
