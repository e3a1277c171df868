/**
 * Who may use which MQTT topic (docs/protocol/http-api-v2.md §5): a user reads and writes only under
 * its own prefix `ovms/<username>/`; the configured superuser everything. Unlike the reference,
 * nobody but the superuser may publish a config read request (`…/client/<id>/request/config`),
 * which would make the module send its configuration, passwords included. Reading and subscribing
 * to such topics stays allowed: the module itself subscribes to them (3.3.006+). Pure.
 */

export type AclDecision = 'superuser' | 'granted' | 'denied';

/** What the client wants to do with the topic: publish (`write`), or read / subscribe. */
export type TopicAccess = 'read' | 'write';

const CONFIG_REQUEST = /^[^/]+\/client\/[^/]+\/request\/config(\/|$)/;

/** Whether the user is the configured superuser (none when it is unset or empty). */
export function isSuperuser(username: string, superuser: string | undefined): boolean {
  return superuser !== undefined && superuser !== '' && username === superuser;
}

export function topicAccess(username: string, topic: string, superuser?: string, access: TopicAccess = 'write'): AclDecision {
  if (isSuperuser(username, superuser)) return 'superuser';
  if (username === '' || /[+#/]/.test(username)) return 'denied';
  const prefix = `ovms/${username}/`;
  if (!topic.startsWith(prefix)) return 'denied';
  if (access === 'write' && CONFIG_REQUEST.test(topic.slice(prefix.length))) return 'denied';
  return 'granted';
}

/**
 * The access of a Mosquitto auth plugin's `acc` (1 read, 2 write, 3 read and write, 4 subscribe);
 * anything else counts as write, the strictest.
 */
export function pluginAccess(acc: string | undefined): TopicAccess {
  return acc === '1' || acc === '4' ? 'read' : 'write';
}
