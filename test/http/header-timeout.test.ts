/**
 * The HTTP request timeout bounds the headers too: a client that drips its headers a byte at a
 * time, or opens a connection and sends nothing, is cut off after the request timeout (here a
 * short one), while it is still sending. A normal request on the same server is answered.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let port: number;
before(async () => {
  t = await startTestServer({ httpRequestTimeoutMs: 300 });
  port = t.server.ports.http!;
});
after(() => t.close());

function connect(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    let data = '';
    socket.setEncoding('latin1').on('data', (d: string) => (data += d));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
  });
}

test('a client that drips its headers is cut off while it still sends', async () => {
  const c = await connect();
  c.socket.write('GET /api/vehicles HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  let sent = 0;
  const drip = setInterval(() => {
    if (c.socket.writable) c.socket.write('a');
    sent++;
  }, 20);
  // a generous guard, 20 times the timeout: without the fix node checks every 30 s
  let guard: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      c.closed,
      new Promise((_r, reject) => (guard = setTimeout(() => reject(new Error('still connected long after the request timeout')), 20 * 300))),
    ]);
  } finally {
    clearInterval(drip);
    clearTimeout(guard);
    c.socket.destroy();
  }
  assert.ok(sent > 0, 'the client was still dripping');
  assert.match(c.received(), /^HTTP\/1\.1 408 /, 'a 408, as node answers a request timeout');
});

test('a connection that sends nothing is closed', async () => {
  const c = await connect();
  await c.closed;
});

test('a normal request is answered', async () => {
  const res = await fetch(`http://127.0.0.1:${port}/api/vehicles`);
  assert.equal(res.status, 401);
});
