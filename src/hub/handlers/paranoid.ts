/**
 * Paranoid mode (docs/protocol/mp.md §10): `ET<token>` and `EM<code><payload>` are relayed opaquely.
 * The server only looks at the inner code to route commands and responses and to store the
 * car's messages under their code.
 */
import { parseParanoid } from '../../core/mp/paranoid.js';
import { ignored, type Handler } from './port.js';
import { runForClient } from './command.js';
import { routeResponse } from './command-response.js';
import { storeAndForward } from './car-data.js';

export const handleParanoid: Handler = (hub, peer, link, data) => {
  const p = parseParanoid(data);
  if (!p) return ignored(hub, peer, 'E', 'a malformed paranoid message');

  if (peer.clientType === 'C') {
    if (p.kind === 'token') {
      // REF accepts ET from any client type, so an app could invalidate the car's stored data.
      peer.ptoken = p.token;
      hub.toClients(link, 'E', data);
      if (link.paranoidToken !== p.token) {
        // synchronously, in message order: only rows stored before this ET become invalid
        link.paranoidToken = p.token;
        hub.store
          .setParanoidToken(link.vehicleId, p.token)
          .catch((err: unknown) => hub.log.error({ err, conn: peer.id }, 'storing the paranoid token failed'));
      }
      return;
    }
    switch (p.innerCode) {
      case 'c':
        // the function number is encrypted: every line completes the head command
        return routeResponse(hub, link, 'E', data, true);
      case 'H':
      case 'h':
        // the record (and for `h` the ack code) is encrypted: nothing can be stored or acked
        return ignored(hub, peer, 'E', 'a paranoid historical record (unsupported)');
      case 'A':
      case 'a':
      case 'P':
      case 'g':
      case 'E':
      case 'C':
        return ignored(hub, peer, 'E', `a paranoid-wrapped ${p.innerCode}`);
      default:
        return storeAndForward(hub, peer, link, p.innerCode, p.payload, true, data);
    }
  }

  if (peer.clientType === 'A' || peer.clientType === 'B') {
    if (p.kind === 'message' && p.innerCode === 'C') return runForClient(hub, peer, link, { code: 'E', data }, null);
    if (peer.clientType === 'A' && p.kind === 'message') return hub.toCar(link, 'E', data);
  }
  return ignored(hub, peer, 'E', 'a paranoid message from a client');
};
