/**
 * The dispatch table of docs/protocol/mp.md §9: one handler per message code, chosen by the code and
 * the sender's client type. Paranoid `E` messages are unwrapped by their own handler, which
 * re-enters the table for commands and responses.
 */
import type { MpMessage } from '../core/mp/message.js';
import type { Peer } from './links/peer.js';
import type { VehicleLink } from './links/vehicle-link.js';
import { handlePing } from './handlers/ping.js';
import { handleNotification, handlePushSubscription } from './handlers/push.js';
import { handleParanoid } from './handlers/paranoid.js';
import { handleCommand } from './handlers/command.js';
import { handleCommandResponse } from './handlers/command-response.js';
import { handleGroupSubscription, handleGroupUpdate } from './handlers/group.js';
import { handleHistorical, handleAckedHistorical } from './handlers/historical.js';
import { storeAndForward } from './handlers/car-data.js';
import { ignored, type Handler, type HubPort } from './handlers/port.js';

/** Handlers that apply whatever the sender's type (§9, first table). */
const ANY_SENDER: Record<string, Handler> = {
  A: handlePing,
  a: () => {},
  P: handleNotification,
  p: handlePushSubscription,
  E: handleParanoid,
  G: handleGroupSubscription,
};

/** Handlers for messages from cars. */
const FROM_CAR: Record<string, Handler> = {
  c: handleCommandResponse,
  g: handleGroupUpdate,
  H: handleHistorical,
  h: handleAckedHistorical,
};

/** Handlers for messages from apps and batch clients. */
const FROM_CLIENT: Record<string, Handler> = {
  C: handleCommand,
};

export function dispatch(hub: HubPort, peer: Peer, link: VehicleLink, msg: MpMessage): void {
  const { code, data } = msg;
  const any = ANY_SENDER[code];
  if (any) return any(hub, peer, link, data);
  switch (peer.clientType) {
    case 'C': {
      const h = FROM_CAR[code];
      if (h) return h(hub, peer, link, data);
      if (code === 'C') return ignored(hub, peer, code, 'a command from a car');
      return storeAndForward(hub, peer, link, code, data, false);
    }
    case 'A':
    case 'B': {
      const h = FROM_CLIENT[code];
      if (h) return h(hub, peer, link, data);
      if (peer.clientType === 'A' && code !== 'c' && code !== 'H' && code !== 'h' && code !== 'g') {
        // anything else from an app goes to the car unchanged (dropped when it is offline)
        return hub.toCar(link, code, data);
      }
      return ignored(hub, peer, code, 'a car-only message from a client');
    }
    case 'S':
      return ignored(hub, peer, code, 'a message from a peer server');
  }
}
