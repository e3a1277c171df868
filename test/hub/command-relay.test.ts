/**
 * The command service in a cluster: a vehicle whose link is on another node gets the job passed
 * on (that node queues, times and audits it), in `--command-link` order over the nodes; a job
 * passed on is never passed on again; a node out of reach is audited here; shutdown answers a job
 * waiting on another node at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CommandOutcome } from '../../src/core/commands/result.js';
import { isVtsError, VtsError } from '../../src/errors.js';
import { auditedElsewhere, CommandService, type CommandJob, type CommandResult, type CommandTransport, type JobRequest, type RemoteRoutes } from '../../src/hub/commands/command-service.js';
import { createLogger } from '../../src/util/log.js';
import type { CommandAuditEntry, Store } from '../../src/store/store.js';

function local(name: string, reaches: boolean): CommandTransport & { ran: string[] } {
  const ran: string[] = [];
  return {
    name,
    ran,
    reaches: () => reaches,
    run: async (_v: string, job: CommandJob): Promise<CommandOutcome> => {
      ran.push(job.command?.params ?? '');
      return { result: 0, output: `${name} ran it` };
    },
  };
}

function setup(transports: CommandTransport[], nodes: Record<string, string | null>, relay: (node: string, req: JobRequest) => Promise<CommandResult>) {
  const audit: CommandAuditEntry[] = [];
  const store = { addCommandAudit: async (e: CommandAuditEntry) => void audit.push(e) } as unknown as Store;
  const relayed: [string, JobRequest][] = [];
  const remote: RemoteRoutes = {
    nodeFor: (_v, transport) => nodes[transport] ?? null,
    run: (node, req) => {
      relayed.push([node, req]);
      return relay(node, req);
    },
  };
  const service = new CommandService(store, transports, createLogger('silent'), undefined, Date.now, undefined, remote);
  const ask = (extra: Partial<JobRequest> = {}) =>
    service.run({ vehicleId: 'CAR1', kind: 'shell', job: { command: { code: 7, params: 'stat' } }, caller: 'user:demo', via: 'api', ...extra });
  return { service, audit, relayed, ask };
}

const done: CommandResult = { result: 0, output: 'far away', durationMs: 4, transport: 'mp' };

test('a vehicle on another node: the job is passed on, run and audited there, not here', async () => {
  const { audit, relayed, ask } = setup([local('mp', false), local('mqtt', false)], { mp: 'node-b' }, async () => done);
  assert.deepEqual(await ask(), done);
  assert.equal(relayed.length, 1);
  assert.equal(relayed[0]![0], 'node-b');
  assert.equal(relayed[0]![1].relayed, true);
  assert.equal(relayed[0]![1].caller, 'user:demo');
  assert.deepEqual(audit, [], 'the node that ran it audits it');
});

test('the link order holds across nodes: v2 on another node before v3 here (--command-link v2)', async () => {
  const v3 = local('mqtt', true);
  const { relayed, ask } = setup([local('mp', false), v3], { mp: 'node-b' }, async () => done);
  await ask();
  assert.equal(relayed.length, 1);
  assert.deepEqual(v3.ran, []);
  const here = setup([local('mp', true), local('mqtt', false)], { mp: 'node-b' }, async () => done);
  assert.equal((await here.ask()).transport, 'mp');
  assert.equal(here.relayed.length, 0, 'this node holds the car: it runs the job itself');
});

test("a job passed on runs here or nowhere; the other node's failure is not audited twice; an unreachable node is", async () => {
  const s = setup([local('mp', false)], { mp: 'node-b' }, async () => {
    throw auditedElsewhere(new VtsError('VTS_ERR_COMMAND_TIMEOUT', '30000 ms'));
  });
  await assert.rejects(s.ask({ relayed: true }), (err: unknown) => isVtsError(err, 'VTS_ERR_NOT_CONNECTED'));
  assert.equal(s.relayed.length, 0);
  assert.deepEqual(s.audit.map((e) => e.result), ['not-connected']);
  await assert.rejects(s.ask(), (err: unknown) => isVtsError(err, 'VTS_ERR_COMMAND_TIMEOUT'));
  assert.equal(s.audit.length, 1, 'audited by the node that ran it');

  const gone = setup([local('mp', false)], { mp: 'node-b' }, async () => {
    throw new VtsError('VTS_ERR_NOT_CONNECTED', 'node node-b left the cluster');
  });
  await assert.rejects(gone.ask(), (err: unknown) => isVtsError(err, 'VTS_ERR_NOT_CONNECTED'));
  assert.deepEqual(gone.audit.map((e) => e.result), ['not-connected']);
});

test('shutdown answers a job waiting on another node at once', async () => {
  const { service, ask, audit } = setup([local('mp', false)], { mp: 'node-b' }, () => new Promise<CommandResult>(() => undefined));
  const pending = ask();
  await new Promise((r) => setImmediate(r));
  await service.shutdown();
  await assert.rejects(pending, (err: unknown) => isVtsError(err, 'VTS_ERR_SHUTTING_DOWN'));
  assert.deepEqual(audit.map((e) => e.result), ['shutting-down']);
});
