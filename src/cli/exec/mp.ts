/**
 * `vts exec --via mp`: the command as an MP batch client (`B`) of a v2 server: log in (scheme 0
 * with the car password, or scheme 1 with a user name and password or token), read the replay up
 * to `T` (its `Z` tells whether the car is connected), send `C<code>,<params>` and collect the `c`
 * records that answer it (several for functions 1 and 3, or as many as `#…/<n>` says).
 */
import { mpCommandData } from '../../core/commands/request.js';
import { outcomeOf, parseResponse } from '../../core/commands/result.js';
import { completesCommand } from '../../core/mp/command.js';
import { CATALOGUE, VtsError } from '../../errors.js';
import { isMpClientError, MpClient, type MpMessage } from '../../mp-client/mp-client.js';
import { ExecError, reason, timedOut, type ExecOutcome, type ExecRequest } from './common.js';

export interface MpTarget {
  host: string;
  port: number;
  login: { scheme: 0; password: string } | { scheme: 1; username: string; password: string };
}

/** The text of the server's answer to a command for a car that is not connected (src/errors.ts). */
const NOT_CONNECTED_TEXT = CATALOGUE.VTS_ERR_NOT_CONNECTED.mp;

export async function runViaMp(req: ExecRequest, target: MpTarget): Promise<ExecOutcome> {
  const deadline = Date.now() + req.timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  const where = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  let client: MpClient;
  try {
    client = await MpClient.connect({
      host: target.host,
      port: target.port,
      clientType: 'B',
      vehicleId: req.vehicleId,
      timeoutMs: left(),
      ...(target.login.scheme === 0
        ? { scheme: 0, password: target.login.password }
        : { scheme: 1, username: target.login.username, password: target.login.password }),
    });
  } catch (err) {
    if (isMpClientError(err, 'MP_LOGIN_TIMEOUT')) throw timedOut(`no MP login at ${where}`, req.timeoutMs);
    if (isMpClientError(err, 'MP_LOGIN_CLOSED')) {
      throw new ExecError(
        target.login.scheme === 0
          ? `the MP server at ${where} refused the login: wrong vehicle id or car password`
          : `the MP server at ${where} refused the login of user ${target.login.username}: wrong user name, password or token, not the user's vehicle, or no right v2`,
      );
    }
    if (isMpClientError(err, 'MP_LOGIN_REJECTED')) throw new ExecError(`the MP server at ${where} sent an unexpected or unauthenticated welcome reply`);
    throw new ExecError(`cannot reach the MP server at ${where}: ${reason(err)}`);
  }
  try {
    return await command(client, req, left);
  } catch (err) {
    if (isMpClientError(err, 'MP_TIMEOUT')) throw timedOut('no answer from the vehicle', req.timeoutMs);
    if (isMpClientError(err, 'MP_CLOSED')) throw new ExecError(`the MP server at ${where} closed the connection`);
    throw err;
  } finally {
    await client.close();
  }
}

async function command(client: MpClient, req: ExecRequest, left: () => number): Promise<ExecOutcome> {
  // the replay after the login: Z<0|1>, the stored messages, then T<seconds>
  let carConnected = true;
  await client.waitFor((m) => {
    if (m.code === 'Z') carConnected = m.data !== '0';
    return m.code === 'T';
  }, left());
  if (!carConnected) throw new VtsError('VTS_ERR_NOT_CONNECTED', client.vehicleId);

  const want = req.mp;
  client.send('C', mpCommandData(want));
  const records: string[] = [];
  const answers = (m: MpMessage): boolean => (m.code === 'c' && parseResponse(m.data)?.code === want.code) || (m.code === 'Z' && m.data === '0');
  for (;;) {
    const m = await client.waitFor(answers, left());
    if (m.code === 'Z') throw new VtsError('VTS_ERR_NOT_CONNECTED', `${client.vehicleId} went offline before it answered`);
    records.push(m.data);
    const failed = parseResponse(m.data)?.result !== 0;
    if (want.records === undefined ? completesCommand(m.data) : failed || records.length >= want.records) break;
  }
  const first = parseResponse(records[0]!);
  if (records.length === 1 && first?.result === 1 && first.data === NOT_CONNECTED_TEXT) throw new VtsError('VTS_ERR_NOT_CONNECTED', client.vehicleId);
  return outcomeOf(records);
}
