/** `P` notifications and `p` push subscriptions (docs/protocol/mp.md §12). */
import { sameSecret } from '../../core/crypto/same-secret.js';
import { parsePushSubscription } from '../../core/mp/push-subscription.js';
import type { Handler } from './port.js';
import type { HubPort } from './port.js';
import type { VehicleLink } from '../links/vehicle-link.js';

/** Forward `P` to all clients; with ≥ 2 chars it is also a push notification (type + text). */
export const handleNotification: Handler = (hub, _peer, link, data) => forwardNotification(hub, link, data);

/** `P<type><text>` from the vehicle (v2 car or v3 bridge): to every client, and a notification. */
export function forwardNotification(hub: HubPort, link: VehicleLink, data: string): void {
  hub.toClients(link, 'P', data);
  if (data.length >= 2) hub.notify(link.ownerId, link.vehicleId, data[0]!, data.slice(1));
}

/** `p<appid>,<pushtype>,<pushkeytype>,<vehicleid>,<netpass>,<pushkeyvalue>`: no reply, ever. */
export const handlePushSubscription: Handler = (hub, peer, _link, data) => {
  const sub = parsePushSubscription(data);
  if (!sub) {
    hub.log.info({ conn: peer.id }, 'malformed push subscription ignored');
    return;
  }
  if (peer.userId !== undefined && peer.userId !== peer.ownerId) {
    // the owner's notifications are the owner's: a user the vehicle is shared with gets none
    hub.log.info({ conn: peer.id }, 'push subscription of a shared vehicle refused');
    return;
  }
  const now = hub.seconds();
  const save = (vehicleId: string): void => {
    hub.store
      .upsertPushSubscription({
        ownerId: peer.ownerId,
        vehicleId,
        appId: sub.appId,
        pushType: sub.pushType,
        pushKeyType: sub.pushKeyType,
        pushKeyValue: sub.pushKeyValue,
        lastUpdated: now,
        active: true,
      })
      .catch((err: unknown) => hub.log.error({ err, conn: peer.id }, 'storing a push subscription failed'));
  };
  if (sub.vehicleId === undefined) {
    save(peer.vehicleId); // the `simple` form: the connection's own vehicle
    return;
  }
  const vehicleId = sub.vehicleId;
  const netPass = sub.netPass ?? '';
  hub.store
    .getVehicle(vehicleId)
    .then((v) => {
      if (v && v.ownerId === peer.ownerId && sameSecret(v.carPassword, netPass)) save(v.id);
      else hub.log.info({ conn: peer.id, vehicle: vehicleId }, 'push subscription refused (vehicle or password)');
    })
    .catch((err: unknown) => hub.log.error({ err, conn: peer.id }, 'push subscription lookup failed'));
};
