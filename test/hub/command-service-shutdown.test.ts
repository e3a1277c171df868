/**
 * CommandService.shutdown(): a running and a queued command of a vehicle that never answers are
 * answered at once with VTS_ERR_SHUTTING_DOWN and audited so; shutdown() resolves after that;
 * a later command is refused with the same error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CommandOutcome } from '../../src/core/commands/result.js';
import { isVtsError } from '../../src/errors.js';
import { CommandService, type CommandJob, type CommandTransport } from '../../src/hub/commands/command-service.js';
import { createLogger } from '../../src/util/log.js';
import type { CommandAuditEntry, Store } from '../../src/store/store.js';

test('shutdown answers the running and the queued command at once, then refuses new ones', async () => {
  const sent: string[] = [];
  const silent: CommandTransport = {
    name: 'silent',
    reaches: () => true,
    run: (_vehicleId: string, job: CommandJob): Promise<CommandOutcome> => {
      sent.push(job.command?.params ?? '');
      return new Promise(() => undefined); // a car that never answers
    },
  };
  const audit: CommandAuditEntry[] = [];
  const store = { addCommandAudit: async (e: CommandAuditEntry) => void audit.push(e) } as unknown as Store;
  const service = new CommandService(store, [silent], createLogger('silent'));
  const ask = (text: string) => service.execute({ vehicleId: 'CAR1', kind: 'shell', text, caller: 'user:demo', via: 'api' });

  const outcomes: string[] = [];
  const settle = (name: string, p: Promise<unknown>) =>
    p.then(
      () => outcomes.push(`${name}: answered`),
      (err: unknown) => outcomes.push(`${name}: ${isVtsError(err) ? err.code : String(err)}`),
    );
  const running = settle('running', ask('stat'));
  const queued = settle('queued', ask('location'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent, ['stat'], 'one command runs, the other waits');
  assert.equal(service.pending('CAR1'), 2);

  await service.shutdown();
  // audited by the time shutdown() resolves (the server closes the store next)
  assert.equal(audit.length, 2);
  await Promise.all([running, queued]);
  assert.deepEqual(outcomes.sort(), ['queued: VTS_ERR_SHUTTING_DOWN', 'running: VTS_ERR_SHUTTING_DOWN']);
  assert.deepEqual(audit.map((e) => [e.command, e.result]).sort(), [
    ['7,location', 'shutting-down'],
    ['7,stat', 'shutting-down'],
  ]);
  assert.equal(service.pending('CAR1'), 0);

  await assert.rejects(ask('stat'), (err: unknown) => isVtsError(err, 'VTS_ERR_SHUTTING_DOWN'));
  assert.deepEqual(sent, ['stat'], 'nothing more reached the car');
});
