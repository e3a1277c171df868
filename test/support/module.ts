/** An emulated module (`vts module`'s EmulatedModule) on a test server's MP port, logged in. */
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import type { TestServer } from './server.js';

/** A logger that writes nothing. */
export const quietLog = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/**
 * Starts a module for vehicle `id` (admin password `admin`) on the v2 link of `t`, stops it when
 * the test ends, and resolves once the server counts it connected.
 */
export async function startV2Module(
  ctx: Pick<TestContext, 'after'>,
  t: TestServer,
  opts: { id: string; carPassword: string; seed: number },
): Promise<EmulatedModule> {
  const mod = new EmulatedModule({
    id: opts.id,
    seed: opts.seed,
    carPassword: opts.carPassword,
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: t.mpPort },
    log: quietLog,
  });
  ctx.after(() => mod.stop());
  await mod.start();
  await eventually(() => (t.server.hub.counts(opts.id).net === 1 ? true : undefined), `the module ${opts.id} connected`, 10_000);
  return mod;
}
