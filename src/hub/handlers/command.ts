/**
 * `C` commands from apps and batch clients (docs/protocol/mp.md §11.1). Commands 30–32 are answered by
 * the server; every other one goes through the command service, like the HTTP command API: it is
 * queued behind the vehicle's other commands, timed, audited (caller `mp:<connection>`), and sent
 * over the link that reaches the vehicle. The car's answer records reach the sender as they come.
 */
import { commandFunction, commandParams, failureResponse, SERVER_FUNCTIONS } from '../../core/mp/command.js';
import { refusal } from '../../core/auth/vehicle-access.js';
import { commandFailure } from '../../errors.js';
import type { Handler, HubPort } from './port.js';
import type { Peer } from '../links/peer.js';
import type { VehicleLink } from '../links/vehicle-link.js';
import { answerServerCommand } from './server-commands.js';

export const handleCommand: Handler = (hub, peer, link, data) => {
  const fn = commandFunction(data);
  if (fn !== null && SERVER_FUNCTIONS.has(fn)) return answerServerCommand(hub, peer, link, fn, data);
  runForClient(hub, peer, link, { code: 'C', data }, fn);
};

/** The text of the `c<fn>,1,<text>` an MP client gets when its command did not get an answer (src/errors.ts). */
const failureText = (err: unknown): string => commandFailure(err).mp;

/**
 * Runs an MP client's command (`C<fn>,<params>`, or a paranoid `E` command whose function is
 * encrypted: `fn` null) through the command service. The message goes to a v2 car unchanged; a
 * vehicle only on the v3 link runs it as a console command (docs/protocol/mqtt-v3.md §11.7) and the sender gets
 * the `c` record built from its output. When no answer comes (not connected, timeout, queue full),
 * the sender of a plain command gets `c<fn>,1,<why>` (REF stays silent); for a paranoid command no
 * reply can be built.
 */
export function runForClient(hub: HubPort, peer: Peer, link: VehicleLink, wire: { code: 'C' | 'E'; data: string }, fn: number | null): void {
  const command = wire.code === 'C' && fn !== null ? { code: fn, params: commandParams(wire.data) } : null;
  const fail = (err: unknown): void => {
    if (wire.code === 'C') hub.deliver(peer, 'c', failureResponse(fn ?? (wire.data.split(',', 1)[0] ?? ''), failureText(err)));
  };
  // a login of a user the vehicle is shared with to view only sends no command (the access model)
  const refused = peer.access === undefined ? null : refusal(peer.access, 'control');
  if (refused !== null) {
    hub.log.info({ conn: peer.id, vehicle: link.vehicleId }, 'command refused: the vehicle is shared with this user to view only');
    if (wire.code === 'C') hub.deliver(peer, 'c', failureResponse(fn ?? (wire.data.split(',', 1)[0] ?? ''), refused));
    return;
  }
  let wasRefused = false;
  hub.commands
    .run({
      vehicleId: link.vehicleId,
      kind: 'mp',
      // a connection is known by its node in a cluster
      caller: hub.cluster.clustered ? `mp:${hub.cluster.nodeId}/${peer.id}` : `mp:${peer.id}`,
      via: 'mp',
      job: {
        command,
        wire,
        // nothing for a client that has left (its link may even be gone)
        onRecord: (code, data) => {
          if (link.apps.has(peer) || link.batches.has(peer)) hub.deliverNow(peer, code, data, undefined);
        },
      },
      // at once, in the order of the client's messages
      onRefused: (err) => {
        wasRefused = true;
        fail(err);
      },
    })
    .catch((err: unknown) => {
      if (!wasRefused) fail(err);
    });
}
