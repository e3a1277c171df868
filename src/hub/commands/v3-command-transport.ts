/**
 * The command service's way to a vehicle on the v3 link of this node: the bridge's V3Link runs
 * the MP command as a console command (docs/protocol/mqtt-v3.md §4.2, §11.7). It cannot carry a message it
 * cannot read (a paranoid command); an MP client gets the `c` record built from the outcome.
 */
import { responseData } from '../../core/commands/shell-map.js';
import { encodeText } from '../../core/mp/command.js';
import type { CommandOutcome } from '../../core/commands/result.js';
import { VtsError } from '../../errors.js';
import type { CommandJob, CommandTransport } from './command-service.js';
import type { VehicleLink } from '../links/vehicle-link.js';

export class V3CommandTransport implements CommandTransport {
  readonly name = 'mqtt';

  constructor(
    private readonly links: { link(vehicleId: string): VehicleLink | undefined },
    /** Calls `fn` once what was stored before is committed (Store.afterCommit). */
    private readonly afterCommit: (fn: () => void) => void,
  ) {}

  reaches(vehicleId: string, job: CommandJob): boolean {
    return job.command !== null && Boolean(this.links.link(vehicleId)?.v3);
  }

  async run(vehicleId: string, job: CommandJob, timeoutMs: number): Promise<CommandOutcome> {
    const v3 = this.links.link(vehicleId)?.v3;
    const command = job.command;
    if (!v3 || !command) throw new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId);
    const outcome = await v3.run(command, timeoutMs);
    const onRecord = job.onRecord;
    if (onRecord) this.afterCommit(() => onRecord('c', responseData(command, outcome, encodeText)));
    return outcome;
  }
}
