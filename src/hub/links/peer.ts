/** What the hub knows of a logged-in MP connection: the adapter implements it, the hub drives it. */
import type { ClientType } from '../../core/mp/welcome.js';

export interface Peer {
  /** Connection id, unique in the process (for logs). */
  readonly id: number;
  readonly clientType: ClientType;
  readonly vehicleId: string;
  /** The owner of the vehicle. */
  readonly ownerId: number;
  /**
   * An app or batch login (MP scheme 1): the user who logged in and its access to the vehicle
   * (src/core/auth/vehicle-access.ts): `owner`, or a share's `view` or `control`. Undefined for a
   * car or peer-server login.
   */
  readonly userId?: number;
  readonly access?: 'owner' | 'control' | 'view';
  readonly remoteAddress: string;
  /** Paranoid token the car announced on this connection (`ET`), '' when none. */
  ptoken: string;
  /** Bytes received from / sent to this peer since the traffic accounting last collected them. */
  rxBytes: number;
  txBytes: number;
  /** Sends one message `<code><data>` to the peer (framed and encrypted as its scheme needs). */
  send(code: string, data: string): void;
  /** Ends the connection; the adapter later calls `hub.detach(peer)` (which is idempotent). */
  close(reason: string): void;
}
