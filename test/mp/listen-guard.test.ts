/**
 * The listener guard (src/util/listen.ts): every listener a start opens gets its guard, also when two
 * starts run at once; once no start runs, no async hook is left watching the process's promises
 * (it would cost every request of the HTTP API).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { listen, withListenerGuard } from '../../src/util/listen.js';

test('each start guards its own listeners, two at once too', async (t) => {
  const servers: Server[] = [];
  t.after(() => servers.forEach((s) => s.close()));
  const open = async (): Promise<Server> => {
    await new Promise((r) => setTimeout(r, 5));
    const s = createServer();
    servers.push(s);
    await listen(s, 0, '127.0.0.1');
    return s;
  };
  const guarded = new Map<Server, string>();
  const start = (name: string) =>
    withListenerGuard(
      (server) => void guarded.set(server, name),
      async () => [await open(), await open()],
    );
  const [one, two] = await Promise.all([start('one'), start('two')]);
  assert.deepEqual(one.map((s) => guarded.get(s)), ['one', 'one']);
  assert.deepEqual(two.map((s) => guarded.get(s)), ['two', 'two']);

  // outside a start: no guard
  const loose = await open();
  assert.equal(guarded.has(loose), false);

  // a later start guards again
  const [again] = await start('again');
  assert.equal(guarded.get(again!), 'again');
});

test('once the start is over, no async hook watches the promises of the process', () => {
  // in a process of its own: the test runner watches promises itself. While an async hook is on,
  // Node marks each new promise with its async id.
  const script = `
    import { createServer } from 'node:net';
    import { listen, withListenerGuard } from './src/util/listen.ts';
    const watched = () => Object.getOwnPropertySymbols(Promise.resolve()).some((s) => String(s).includes('async_id'));
    const server = createServer();
    let during = false;
    await withListenerGuard(() => {}, async () => { await listen(server, 0, '127.0.0.1'); during = watched(); });
    await new Promise((r) => setTimeout(r, 10));
    console.log(JSON.stringify({ during, after: watched() }));
    server.close();
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { during: true, after: false });
});
