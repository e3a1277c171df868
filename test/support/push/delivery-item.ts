/** A delivery as the dispatcher hands it to a provider, for the providers' tests. */
import type { Channel } from '../../../src/core/push/channels.js';
import type { DeliveryItem } from '../../../src/store/push-store.js';

/** A pending first attempt of `channel` (an app's subscription of DEMO1 unless `over` says otherwise). */
export function deliveryItem(channel: Channel, over: Partial<DeliveryItem> = {}): DeliveryItem {
  return {
    id: 1,
    notificationId: 1,
    channel,
    state: 'pending',
    attempts: 0,
    ownerId: 1,
    ownerName: 'owner',
    vehicleId: 'DEMO1',
    vehicleName: 'My Leaf',
    alertType: 'A',
    text: 'Charging stopped',
    time: 1_700_000_000,
    event: null,
    rule: null,
    heldUntil: null,
    appId: 'app-1',
    targetId: 0,
    keyType: '',
    address: '',
    secret: '',
    receipt: '',
    ...over,
  };
}
