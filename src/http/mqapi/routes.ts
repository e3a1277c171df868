/**
 * `/mqapi`: the HTTP auth backend of a Mosquitto with the HTTP auth plugin (docs/protocol/http-api-v2.md §5),
 * so that an external broker applies vts's users, tokens and topic rules. POST form fields only;
 * the outcome is the status code and the reason phrase, bodies are empty unless stated:
 * - `/mqapi/auth` (`username`, `password`: account password or API token; `clientid`): 200
 *   `Authentication OK` when it is valid and grants `v3` or `mqtt` (so `*` does), else 403
 *   `Authentication FAILED`; from this machine (the plugin's broker) throttled per MQTT client id;
 * - `/mqapi/superuser` (`username`): 404 `Username required`; 200 `Is a superuser` for the
 *   configured `--mqtt-superuser`, else 403 `Not a superuser`;
 * - `/mqapi/acl` (`username`, `topic`): 200 `Superuser acl is permitted`, 200 `Access granted` for
 *   the user's own prefix `ovms/<username>/` and the topics of a vehicle shared with it (read;
 *   control: its command topics), else 403 `Access denied` (src/core/mqtt/acl.ts, share-acl.ts); a
 *   config read request is denied for `acc` 2/3 (write) and for a missing `acc`, allowed to read.
 * Any other method: 404 `Unrecognised API call`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateUser } from '../../auth/authenticate.js';
import { sharedTopicAllowed } from '../../auth/vehicle-access.js';
import { userAccount } from '../../auth/login-guard.js';
import { hasRight } from '../../core/auth/rights.js';
import { pluginAccess, topicAccess } from '../../core/mqtt/acl.js';
import type { HttpContext } from '../context.js';
import { isLoopback } from '../../core/address-key.js';
import { clientAddress, requestParams } from '../params.js';
import { badRequest, sendText, unrecognised } from '../reply.js';

const empty = (reply: FastifyReply, code: number, reason: string) => sendText(reply, code, '', reason);

export const MQAPI_CALLS = ['auth', 'superuser', 'acl'] as const;

export async function mqapi(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, call: string): Promise<unknown> {
  if (req.method !== 'POST') return unrecognised(reply);
  const params = requestParams(req);
  if (params === null) return badRequest(reply, 'Parameter too long');
  const username = params.username ?? '';
  switch (call) {
    case 'auth': {
      // through the login guard like every secret check; a refused attempt is a plain failure here.
      // The caller is the broker, whose address is every MQTT client's: the client is told apart
      // by its client id when the plugin sends one, so that guesses through the broker cannot
      // lock out the broker's other clients (each user's guesses stay bounded by its account limit)
      // (only from this machine, where the plugin's broker runs: elsewhere a client id chosen per
      // request would step around the address limits)
      const caller = clientAddress(req);
      const clientId = params.clientid ?? '';
      const address = clientId !== '' && isLoopback(caller) ? `mqtt-client:${clientId}` : caller;
      const outcome = await ctx.guard.attempt(address, userAccount(username), async () => {
        const auth = await authenticateUser(ctx.store, ctx.credentials, username, params.password ?? '', ctx.hub.now());
        return auth && hasRight(auth.permit, 'v3', 'mqtt') ? auth : null;
      });
      if (outcome.ok) return empty(reply, 200, 'Authentication OK');
      ctx.log.info({ address, user: username, ...(outcome.throttled ? { limit: outcome.limit } : {}) },
        outcome.throttled ? 'MQTT authentication refused: too many failed logins' : 'MQTT authentication failed');
      return empty(reply, 403, 'Authentication FAILED');
    }
    case 'superuser':
      if (username === '') return sendText(reply, 404, 'Username required', 'Username required');
      return ctx.mqttSuperuser && username === ctx.mqttSuperuser
        ? empty(reply, 200, 'Is a superuser')
        : empty(reply, 403, 'Not a superuser');
    default: {
      const decision = topicAccess(username, params.topic ?? '', ctx.mqttSuperuser, pluginAccess(params.acc));
      if (decision === 'superuser') return empty(reply, 200, 'Superuser acl is permitted');
      if (decision === 'granted') return empty(reply, 200, 'Access granted');
      // a vehicle shared with the user (docs/accounts.md "Sharing"): `acc` 1 is a delivery
      const mode = pluginAccess(params.acc);
      const shared = username !== '' && (await sharedTopicAllowed(ctx.store, username, params.topic ?? '', mode, params.acc === '1'));
      return shared ? empty(reply, 200, 'Access granted') : empty(reply, 403, 'Access denied');
    }
  }
}
