/**
 * Commands from Home Assistant (docs/home-assistant.md): a publish on
 * `ovms/<user>/<vehicle>/vts/set/<charge|climate|wakeup>` by a client of the embedded broker
 * becomes the MP command of HA_COMMANDS and runs through the one command service (queued,
 * audited as `user:<name>` via `mqtt`). The publisher must own the vehicle (or be the superuser),
 * and hold the `command` right (the superuser too); the outcome is published on `…/vts/result` (not retained). The
 * car's answer changes its records, and so the state topics.
 */
import type { Logger } from 'pino';
import { hasRight } from '../core/auth/rights.js';
import { isSuperuser } from '../core/mqtt/acl.js';
import { HA_COMMANDS, VTS_TOPICS } from '../core/ha/discovery.js';
import { commandFailure, VtsError } from '../errors.js';
import type { CommandService } from '../hub/commands/command-service.js';
import type { Store } from '../store/store.js';
import type { BrokerUser } from './broker.js';

export interface HaCommandDeps {
  store: Store;
  commands: CommandService;
  log: Logger;
  superuser?: string;
  publish(topic: string, payload: string, retain: boolean): Promise<void>;
}

const SET = /^ovms\/([^/]+)\/([^/]+)\/vts\/set\/([a-z]+)$/;

/** Whether a topic is a command topic (cheap; for every publish). */
export function isCommandTopic(topic: string): boolean {
  return topic.includes('/vts/set/') && SET.test(topic);
}

export async function runHaCommand(deps: HaCommandDeps, user: BrokerUser, topic: string, payload: string): Promise<void> {
  const m = SET.exec(topic);
  if (!m) return;
  const [, topicUser, topicVehicle, component] = m as unknown as [string, string, string, string];
  const resultTopic = `ovms/${topicUser}/${topicVehicle}/${VTS_TOPICS.result}`;
  const answer = (body: Record<string, unknown>): Promise<void> =>
    deps.publish(resultTopic, JSON.stringify({ command: component, payload, ...body }), false).catch(() => undefined);
  const fail = (err: unknown): Promise<void> => {
    const f = commandFailure(err);
    return answer({ error: f.code, message: f.message });
  };
  const text = Object.hasOwn(HA_COMMANDS, component) ? HA_COMMANDS[component]?.[payload.trim().toUpperCase()] : undefined;
  if (text === undefined) return fail(new VtsError('VTS_ERR_COMMAND_SYNTAX', 'charge and climate take ON or OFF, wakeup takes PRESS'));
  const superuser = isSuperuser(user.name, deps.superuser);
  const vehicle = await deps.store.getVehicle(topicVehicle).catch(() => undefined);
  // the topic's user must own the vehicle, and the publisher be that user (the broker checked the
  // prefix) or the superuser
  if (!vehicle || vehicle.ownerName !== topicUser || (!superuser && user.name !== topicUser)) {
    deps.log.info({ user: user.name, topic }, 'MQTT command refused: not the owner of the vehicle');
    return fail(new VtsError('VTS_ERR_UNKNOWN_VEHICLE', topicVehicle));
  }
  // the superuser too: a superuser token meant for reading may not start anything
  if (!hasRight(user.permit, 'command', 'admin')) {
    deps.log.info({ user: user.name, vehicle: vehicle.id }, 'MQTT command refused: the login has no command right');
    return fail(new VtsError('VTS_ERR_FORBIDDEN', 'the login has no right command: log in with a token with the rights mqtt,command'));
  }
  try {
    const r = await deps.commands.execute({ vehicleId: vehicle.id, kind: 'mp', text, caller: `user:${user.name}`, via: 'mqtt' });
    return answer({ result: r.result, output: r.output });
  } catch (err) {
    if (!(err instanceof VtsError)) deps.log.error({ err, vehicle: vehicle.id }, 'MQTT command failed');
    return fail(err);
  }
}
