/**
 * The command service's way to a vehicle on the v2 link of this node: the command goes to the car
 * and a waiter for its answer into the car connection's response queue (docs/protocol/mp.md §11), so a
 * reply reaches exactly the job that asked. On a timeout the job's place in the queue is kept as
 * a placeholder: the late reply is dropped, not given to the next command.
 */
import { completesCommand } from '../../core/mp/command.js';
import { mpCommandData } from '../../core/commands/request.js';
import { outcomeOf, type CommandOutcome } from '../../core/commands/result.js';
import { VtsError } from '../../errors.js';
import type { CommandJob, CommandTransport } from './command-service.js';
import type { CommandWaiter } from './command-waiter.js';
import type { VehicleLink } from '../links/vehicle-link.js';

/** The answer of a paranoid command is opaque: it is one record. */
const PARANOID_OUTCOME: CommandOutcome = { result: 0, output: '' };

export class MpCommandTransport implements CommandTransport {
  readonly name = 'mp';

  constructor(private readonly links: { link(vehicleId: string): VehicleLink | undefined }) {}

  reaches(vehicleId: string): boolean {
    return Boolean(this.links.link(vehicleId)?.car);
  }

  run(vehicleId: string, job: CommandJob, timeoutMs: number): Promise<CommandOutcome> {
    const link = this.links.link(vehicleId);
    const car = link?.car;
    if (!link || !car) return Promise.reject(new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId));
    const command = job.command;
    const wire = job.wire ?? { code: 'C' as const, data: mpCommandData(command!) };
    if (!job.wire && command?.records === 0) {
      car.send('C', wire.data);
      return Promise.resolve({ result: 0, output: '' });
    }
    const paranoid = wire.code === 'E';
    const answerCode = paranoid ? 'E' : 'c';
    return new Promise((resolve, reject) => {
      const records: string[] = [];
      let done = false;
      const finish = (err?: Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(paranoid ? PARANOID_OUTCOME : outcomeOf(records));
      };
      const complete = (data: string): boolean => {
        if (paranoid) return true; // the function is encrypted: every line completes the command
        if (!job.wire && command?.records !== undefined) return records.length >= command.records;
        return completesCommand(data);
      };
      const waiter: CommandWaiter = {
        answer(code, data) {
          if (code !== answerCode || done) return;
          records.push(data);
          job.onRecord?.(code, data);
          if (complete(data)) finish();
        },
        carLeft() {
          finish(new VtsError('VTS_ERR_NOT_CONNECTED', `${vehicleId}: the car disconnected before it answered`));
        },
      };
      const timer = setTimeout(() => {
        link.commands.forget(waiter);
        finish(new VtsError('VTS_ERR_COMMAND_TIMEOUT', `${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref(); // a command abandoned at shutdown must not hold the process
      link.commands.push(waiter);
      car.send(wire.code, wire.data);
    });
  }
}
