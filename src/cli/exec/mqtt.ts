/**
 * `vts exec --via mqtt`: the command through the module's v3 link (docs/protocol/mqtt-v3.md §4.2,
 * docs/protocol/commands.md §6). A clean MQTT session with a client id of its own subscribes
 * `<prefix>client/<cid>/response/<rid>` and the module's retained `<prefix>metric/s/v3/connected`;
 * the command goes out on `<prefix>client/<cid>/command/<rid>` (QoS 1, not retained) only when
 * that metric says `yes`, so that a command for an offline module is not left in its persistent
 * session to run at its next login. The client does not announce itself on `client/<cid>/active`:
 * commands need no presence (§4.2), and a presence would change the module's update rates.
 */
import { randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { VtsError } from '../../errors.js';
import { ExecError, reason, timedOut, type ExecOutcome, type ExecRequest } from './common.js';

export interface MqttTarget {
  /** `mqtt://host[:port]` or `mqtts://…`, without credentials. */
  url: string;
  username?: string;
  password?: string;
  /** The module's topic prefix, verbatim (e.g. `ovms/<user>/<vehicle>/`). */
  prefix: string;
}

/** How long to wait for the retained presence metric after subscribing. */
const PRESENCE_WAIT_MS = 2000;

/** MQTT 3.1.1 CONNACK refusals. */
const REFUSED: Record<number, string> = {
  1: 'unacceptable protocol version',
  2: 'client id rejected',
  3: 'server unavailable',
  4: 'bad user name or password',
  5: 'not authorized',
};

export async function runViaMqtt(req: ExecRequest, target: MqttTarget): Promise<ExecOutcome> {
  const deadline = Date.now() + req.timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  const where = new URL(target.url).host;
  const cid = 'vts-exec-' + randomBytes(6).toString('hex');
  const rid = '1';
  const topics = {
    command: `${target.prefix}client/${cid}/command/${rid}`,
    response: `${target.prefix}client/${cid}/response/${rid}`,
    presence: `${target.prefix}metric/s/v3/connected`,
  };

  const options: IClientOptions = {
    clientId: cid,
    clean: true,
    protocolVersion: 4,
    reconnectPeriod: 0,
    connectTimeout: left(),
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
  };
  const client = connect(target.url, options);

  // everything the session learns, and one waiter at a time
  const seen: { presence?: string; output?: string } = {};
  /** Read through a function: the message handler changes it while we wait. */
  const presence = (): string | undefined => seen.presence;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const poke = (): void => wake?.();
  const until = (done: () => boolean, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (failure || done()) finish(true);
      };
      const timer = setTimeout(() => finish(false), ms);
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        wake = undefined;
        resolve(ok);
      };
      wake = check;
      check();
    });

  let connected = false;
  client.on('connect', () => {
    connected = true;
    poke();
  });
  client.on('error', (err: Error & { code?: unknown }) => {
    failure ??=
      typeof err.code === 'number'
        ? new ExecError(`the MQTT broker at ${where} refused the login${target.username ? ` of ${target.username}` : ''}: ${REFUSED[err.code] ?? `code ${err.code}`}`)
        : new ExecError(`cannot reach the MQTT broker at ${where}: ${reason(err)}`);
    poke();
  });
  client.on('close', () => {
    failure ??= new ExecError(`the MQTT broker at ${where} closed the connection`);
    poke();
  });
  client.on('message', (topic, payload) => {
    if (topic === topics.presence) seen.presence = payload.toString('utf8');
    else if (topic === topics.response) seen.output ??= payload.toString('utf8');
    poke();
  });

  try {
    if (!(await until(() => connected, left()))) throw timedOut(`no MQTT login at ${where}`, req.timeoutMs);
    if (failure) throw failure;

    const granted = await client.subscribeAsync([topics.response, topics.presence], { qos: 1 });
    const denied = granted.filter((g) => g.qos === 128).map((g) => g.topic);
    if (denied.length > 0) throw new ExecError(`the MQTT broker at ${where} refused the subscription to ${denied.join(', ')}`);

    await until(() => presence() !== undefined && presence() !== '', Math.min(PRESENCE_WAIT_MS, left()));
    if (failure) throw failure;
    if (presence() === 'no') throw new VtsError('VTS_ERR_NOT_CONNECTED', `${req.vehicleId} (its metric s.v3.connected is no)`);
    if (presence() !== 'yes') {
      throw new ExecError(
        `no module under ${target.prefix} on the MQTT broker at ${where} (no retained metric/s/v3/connected): check the vehicle id, --user, --mqtt-prefix or --mqtt (the broker)`,
      );
    }

    await client.publishAsync(topics.command, req.consoleLine ?? '', { qos: 1, retain: false });
    const answered = await until(() => seen.output !== undefined || presence() === 'no', left());
    if (seen.output !== undefined) return { output: seen.output, result: 0 };
    if (presence() === 'no') throw new VtsError('VTS_ERR_NOT_CONNECTED', `${req.vehicleId} went offline before it answered`);
    if (failure) throw failure;
    if (!answered) throw timedOut('no answer from the module (it may still run the command)', req.timeoutMs);
    throw new ExecError('no answer from the module');
  } catch (err) {
    if (err instanceof ExecError || err instanceof VtsError) throw err;
    throw failure ?? new ExecError(`MQTT error at ${where}: ${reason(err)}`);
  } finally {
    await close(client);
  }
}

/** Disconnects cleanly when connected (bounded to a second), else drops the socket. */
async function close(client: MqttClient): Promise<void> {
  if (!client.connected) {
    client.end(true);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.endAsync(),
    new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        client.end(true);
        resolve();
      }, 1000);
    }),
  ]);
  clearTimeout(timer);
}
