/**
 * Who may use which MQTT topic (http-api-v2.md §5; issue #6): a user reads and writes only under
 * its own prefix `ovms/<username>/`; the configured superuser everything. Unlike the reference,
 * nobody but the superuser may publish a config read request (`…/client/<id>/request/config`),
 * which would make the module send its configuration, passwords included. Pure.
 */

export type AclDecision = 'superuser' | 'granted' | 'denied';

const CONFIG_REQUEST = /^[^/]+\/client\/[^/]+\/request\/config(\/|$)/;

export function topicAccess(username: string, topic: string, superuser?: string): AclDecision {
  if (superuser !== undefined && superuser !== '' && username === superuser) return 'superuser';
  if (username === '' || /[+#/]/.test(username)) return 'denied';
  const prefix = `ovms/${username}/`;
  if (!topic.startsWith(prefix)) return 'denied';
  if (CONFIG_REQUEST.test(topic.slice(prefix.length))) return 'denied';
  return 'granted';
}
