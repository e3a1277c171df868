/**
 * The topics of a v3 module under the default prefix `ovms/<user>/<vehicleid>/` (docs/protocol/mqtt-v3.md §1.1,
 * §2), as the server-side bridge reads and writes them. Pure.
 *
 * Only the default prefix is bridged: the user segment names the vts account (and so the broker's
 * ACL, §9) and the vehicle segment the vehicle. A module with a custom `topic.prefix` is not seen.
 */

export type V3Message =
  /** `metric/<name with . as />`: payload = the value's text. */
  | { kind: 'metric'; name: string }
  /** `notify/<type>/<subtype…>`; for `data`: `notify/data/<subtype>/<entryid>/<age>`. */
  | { kind: 'notify'; type: 'info' | 'alert' | 'error'; subtype: string }
  | { kind: 'notify-data'; subtype: string; entryId: string; age: number }
  /** Legacy `event` (name in the payload, `name` undefined) or `event/<name with . as />`. */
  | { kind: 'event'; name?: string }
  /** `client/<cid>/response/<rid>`: the output of a command. */
  | { kind: 'response'; clientId: string; requestId: string }
  /** Anything else (client commands, presence, requests, config answers). */
  | { kind: 'other' };

export interface V3Topic {
  user: string;
  /** The vehicle segment as the module wrote it. */
  vehicle: string;
  message: V3Message;
}

/** MQTT topic filters that catch every topic the bridge reads (for client id `cid`). */
export function bridgeFilters(clientId: string): string[] {
  // `event/#` also matches the legacy `event` itself (MQTT 3.1.1 §4.7.1.2): one filter, one copy
  return ['ovms/+/+/metric/#', 'ovms/+/+/notify/#', 'ovms/+/+/event/#', `ovms/+/+/client/${clientId}/response/+`];
}

/** The prefix of a vehicle's topics. */
export function topicPrefix(user: string, vehicle: string): string {
  return `ovms/${user}/${vehicle}/`;
}

const dots = (levels: readonly string[]): string => levels.join('.');

/**
 * Reads a topic under the default prefix; null when it is not one (or the user or vehicle level is
 * empty); `other` for anything the bridge does not read (an empty level further on included).
 */
export function parseV3Topic(topic: string): V3Topic | null {
  const levels = topic.split('/');
  if (levels.length < 4 || levels[0] !== 'ovms') return null;
  const [, user, vehicle, head, ...rest] = levels as [string, string, string, string, ...string[]];
  if (user === '' || vehicle === '') return null;
  const at = (message: V3Message): V3Topic => ({ user, vehicle, message });
  if (rest.some((l) => l === '')) return at({ kind: 'other' });
  switch (head) {
    case 'metric':
      return at(rest.length > 0 ? { kind: 'metric', name: dots(rest) } : { kind: 'other' });
    case 'notify': {
      const [type, ...sub] = rest;
      if (type === 'data') {
        // notify/data/<subtype…>/<entryid>/<age>: the subtype may have levels of its own
        if (sub.length < 3) return at({ kind: 'other' });
        const age = Number(sub[sub.length - 1]);
        if (!/^-?\d{1,10}$/.test(sub[sub.length - 1]!)) return at({ kind: 'other' });
        return at({ kind: 'notify-data', subtype: dots(sub.slice(0, -2)), entryId: sub[sub.length - 2]!, age });
      }
      if ((type === 'info' || type === 'alert' || type === 'error') && sub.length > 0) {
        return at({ kind: 'notify', type, subtype: dots(sub) });
      }
      return at({ kind: 'other' });
    }
    case 'event':
      return at(rest.length === 0 ? { kind: 'event' } : { kind: 'event', name: dots(rest) });
    case 'client':
      if (rest.length === 3 && rest[1] === 'response') return at({ kind: 'response', clientId: rest[0]!, requestId: rest[2]! });
      return at({ kind: 'other' });
    default:
      return at({ kind: 'other' });
  }
}

/** Whether a text may be one topic level (no separators, no wildcards, not empty). */
export function isTopicLevel(text: string): boolean {
  return text !== '' && !/[/+#]/.test(text) && !text.includes('\u0000');
}
