/**
 * The command service's way to a vehicle on the v2 link: the command goes to the car through the
 * same response queue as apps' commands (mp-protocol.md §11), as a peer of its own that is never a
 * socket, so a reply reaches exactly the caller that asked. On a timeout the caller's place in the
 * queue is kept as a placeholder: the late reply is dropped, not given to the next caller.
 */
import { completesCommand } from '../core/mp/command.js';
import type { MpCommand } from '../core/commands/request.js';
import { mpCommandData } from '../core/commands/request.js';
import { outcomeOf, type CommandOutcome } from '../core/commands/result.js';
import { VtsError } from '../errors.js';
import type { CommandTransport } from './command-service.js';
import type { Hub } from './hub.js';
import type { Peer } from './peer.js';

let nextId = 0;

export class MpCommandTransport implements CommandTransport {
  readonly name = 'mp';

  constructor(private readonly hub: Hub) {}

  reaches(vehicleId: string): boolean {
    return Boolean(this.hub.link(vehicleId)?.car);
  }

  run(vehicleId: string, command: MpCommand, timeoutMs: number): Promise<CommandOutcome> {
    const link = this.hub.link(vehicleId);
    const car = link?.car;
    if (!link || !car) return Promise.reject(new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId));
    if (command.records === 0) {
      car.send('C', mpCommandData(command));
      return Promise.resolve({ result: 0, output: '' });
    }
    return new Promise((resolve, reject) => {
      const records: string[] = [];
      let done = false;
      const finish = (err?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(outcomeOf(records));
      };
      const peer: Peer = {
        id: -++nextId,
        clientType: 'B',
        vehicleId,
        ownerId: link.ownerId,
        remoteAddress: 'command-service',
        ptoken: '',
        rxBytes: 0,
        txBytes: 0,
        send(code, data) {
          if (code !== 'c' || done) return;
          records.push(data);
          if (command.records === undefined ? completesCommand(data) : records.length >= command.records) finish();
        },
        close() {},
        carLeft() {
          finish(new VtsError('VTS_ERR_NOT_CONNECTED', `${vehicleId}: the car disconnected before it answered`));
        },
      };
      const timer = setTimeout(() => {
        link.commands.forget(peer);
        finish(new VtsError('VTS_ERR_COMMAND_TIMEOUT', `${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref(); // a command abandoned at shutdown must not hold the process
      link.commands.push(peer);
      car.send('C', mpCommandData(command));
    });
  }
}
