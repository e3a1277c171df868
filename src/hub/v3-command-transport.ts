/** The command service's way to a vehicle on the v3 link: the bridge's V3Link (mqtt-v3.md §4.2). */
import type { MpCommand } from '../core/commands/request.js';
import type { CommandOutcome } from '../core/commands/result.js';
import { VtsError } from '../errors.js';
import type { CommandTransport } from './command-service.js';
import type { Hub } from './hub.js';

export class V3CommandTransport implements CommandTransport {
  readonly name = 'mqtt';

  constructor(private readonly hub: Hub) {}

  reaches(vehicleId: string): boolean {
    return Boolean(this.hub.link(vehicleId)?.v3);
  }

  run(vehicleId: string, command: MpCommand, timeoutMs: number): Promise<CommandOutcome> {
    const v3 = this.hub.link(vehicleId)?.v3;
    if (!v3) return Promise.reject(new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId));
    return v3.run(command, timeoutMs);
  }
}
