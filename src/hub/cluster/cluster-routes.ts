/**
 * The command service's routes to vehicles whose link is on another node of a cluster: the node
 * that holds the car (`mp`) or the v3 link (`mqtt`) runs the job in its own command service.
 */
import type { Cluster } from './cluster.js';
import type { CommandJob, CommandResult, JobRequest, RemoteRoutes } from '../commands/command-service.js';

export class ClusterRoutes implements RemoteRoutes {
  constructor(private readonly cluster: Cluster) {}

  nodeFor(vehicleId: string, transport: string, job: CommandJob): string | null {
    const r = this.cluster.remote(vehicleId);
    if (transport === 'mp') return r.carNode;
    // the v3 link runs console commands: a message it cannot read stays on the v2 link
    return job.command !== null ? r.v3Node : null;
  }

  run(node: string, req: JobRequest): Promise<CommandResult> {
    return this.cluster.runCommand(node, req);
  }
}
