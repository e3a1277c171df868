/**
 * `A` ping → `a` (docs/protocol/mp.md §9). To an app or batch client the `a` goes after what it was
 * sent before (which waits for the store's commit). To a car it goes at once: a keepalive, it
 * tells the car nothing about what is stored (`h` is the protocol's acknowledgement, sent once
 * the record is on disk), and holding it back would cost the ingest path a commit per turn.
 */
import type { Handler } from './port.js';

export const handlePing: Handler = (hub, peer) => {
  if (peer.clientType === 'C') peer.send('a', '');
  else hub.deliver(peer, 'a', '');
};
