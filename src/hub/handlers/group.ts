/** Group updates `g` from cars and subscriptions `G` (mp-protocol.md §14). */
import { groupMessageData, parseGroupSubscription, parseGroupUpdate } from '../../core/mp/group.js';
import { ignored, type Handler } from './port.js';

export const handleGroupUpdate: Handler = (hub, peer, link, data) => {
  const g = parseGroupUpdate(data);
  if (!g) return ignored(hub, peer, 'g', 'a malformed group update');
  const out = groupMessageData(link.vehicleId, g.group, g.groupData);
  for (const app of hub.groups.update(peer, g.group, g.groupData)) hub.deliver(app, 'g', out);
};

/** Apps subscribe; any sender gets the current data of every car in the group at once. */
export const handleGroupSubscription: Handler = (hub, peer, _link, data) => {
  const group = parseGroupSubscription(data);
  if (!group) return ignored(hub, peer, 'G', 'a malformed group subscription');
  if (peer.clientType === 'A') hub.groups.subscribe(peer, group);
  for (const [vehicleId, groupData] of hub.groups.members(group)) {
    hub.deliver(peer, 'g', groupMessageData(vehicleId, group, groupData));
  }
};
