/** Group updates `g` from cars and subscriptions `G` (docs/protocol/mp.md §14). */
import { groupMessageData, parseGroupSubscription, parseGroupUpdate } from '../../core/mp/group.js';
import { ignored, type Handler } from './port.js';

/** A car's group data: to the group's subscribers on this node, and through the cluster to the others. */
export const handleGroupUpdate: Handler = (hub, peer, link, data) => {
  const g = parseGroupUpdate(data);
  if (!g) return ignored(hub, peer, 'g', 'a malformed group update');
  hub.groups.update(peer, g.group, g.groupData);
  hub.deliverGroup(g.group, link.vehicleId, g.groupData);
  hub.cluster.groupChanged(g.group, link.vehicleId, g.groupData);
};

/**
 * Apps subscribe; any sender gets the current data of every car in the group at once (the cars of
 * other nodes after a look at the cluster's copy).
 */
export const handleGroupSubscription: Handler = (hub, peer, _link, data) => {
  const group = parseGroupSubscription(data);
  if (!group) return ignored(hub, peer, 'G', 'a malformed group subscription');
  if (peer.clientType === 'A') hub.groups.subscribe(peer, group);
  const local = [...hub.groups.members(group)];
  const send = (members: Iterable<[string, string]>): void => {
    for (const [vehicleId, groupData] of members) hub.deliver(peer, 'g', groupMessageData(vehicleId, group, groupData));
  };
  if (!hub.cluster.clustered) return send(local);
  hub.cluster.groupMembers(group).then(
    (remote) => {
      const here = new Set(local.map(([v]) => v));
      send([...local, ...remote.filter(([v]) => !here.has(v))]);
    },
    (err: unknown) => {
      hub.log.warn({ err, group }, 'cluster: reading the group failed');
      send(local);
    },
  );
};
