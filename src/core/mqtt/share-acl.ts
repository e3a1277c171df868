/**
 * MQTT topics of a vehicle shared with a user (issue 31, docs/accounts.md "Sharing"): the user
 * reads the topics of that vehicle under its owner's prefix, `ovms/<owner>/<VEHICLEID>/…`, and
 * with `control` also sends commands. Pure; the broker looks the share up (src/mqtt/shared-vehicles.ts).
 *
 * - `view`: subscribe to filters under the vehicle's prefix (no wildcard before the vehicle id);
 *   never publish; the vehicle's `client/…` topics (apps' commands and their answers) never reach it;
 * - `control`: the same, all topics reach it, and it publishes under `client/<id>/` (commands,
 *   `active`), never a config read request.
 */

/** The owner name and vehicle id of a topic (or filter) under `ovms/<owner>/<vehicle>/`; null otherwise. */
export function vehicleOfTopic(topic: string): { owner: string; vehicleId: string; rest: string } | null {
  const m = /^ovms\/([^/+#]+)\/([^/+#]+)(?:\/(.*))?$/.exec(topic);
  if (!m) return null;
  return { owner: m[1]!, vehicleId: m[2]!.toUpperCase(), rest: m[3] ?? '' };
}

const CLIENT = /^client(\/|$)/;
const CLIENT_WRITE = /^client\/[^/+#]+\/(command\/[^+#]*|active)$/;

/** Whether a user with this share may subscribe to (`read`) or publish on (`write`) the topic's `rest` (after the vehicle id). */
export function shareAllows(access: 'view' | 'control', rest: string, mode: 'read' | 'write'): boolean {
  if (mode === 'read') return true;
  return access === 'control' && CLIENT_WRITE.test(rest);
}

/** Whether a message on the topic's `rest` may reach a user with this share. */
export function shareReceives(access: 'view' | 'control', rest: string): boolean {
  return access === 'control' || !CLIENT.test(rest);
}
