/** A Redis of a test's own, on a free port, that the test may kill and start again (nothing kept on disk). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { eventually } from '../mp/helpers.js';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** A Redis of this test's own (nothing kept on disk). */
export async function redisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const s = createServer();
        s.once('error', () => resolve(true)); // the port is taken: Redis listens
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(undefined)));
      }),
    `redis-server on ${port}`,
  );
  return child;
}
