/**
 * MP logins go through the one login throttle (src/core/login-throttle.ts): scheme 0 counts against
 * the vehicle, scheme 1 against the user (shared with the HTTP API), each per source address.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { digestBase64, randomToken } from '../../src/core/crypto/digest.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({ loginLimits: { pair: { burst: 3, perMinute: 1 } }, rateLimit: { burst: 0 } });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  await t.addVehicle('OTHER', owner, 'OTHERPASS');
});
after(() => t.close());

/** Sends a welcome line from `localAddress`; resolves to the server's first line, or null when it closed without one. */
function welcome(localAddress: string, line: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: t.mpPort, localAddress }, () => s.write(line + '\r\n'));
    let data = '';
    s.on('data', (c: Buffer) => {
      data += c.toString('latin1');
      const eol = data.indexOf('\r\n');
      if (eol >= 0) {
        s.destroy();
        resolve(data.slice(0, eol));
      }
    });
    s.on('close', () => resolve(null));
    s.on('error', reject);
  });
}

function scheme0(localAddress: string, vehicle: string, password: string): Promise<string | null> {
  const tok = randomToken();
  return welcome(localAddress, `MP-C 0 ${tok} ${digestBase64(password, tok)} ${vehicle}`);
}

test('scheme 0: over the limit the right car password is refused from that address, not from others', async () => {
  for (let k = 0; k < 3; k++) assert.equal(await scheme0('127.0.0.2', 'TESTCAR', 'WRONG'), null, `failure ${k + 1}`);
  assert.equal(await scheme0('127.0.0.2', 'TESTCAR', 'NETPASS'), null, 'refused unchecked');
  assert.ok(t.logs.some((l) => l.includes('too many failed logins (pair limit)')));
  assert.match((await scheme0('127.0.0.3', 'TESTCAR', 'NETPASS')) ?? '', /^MP-S 0 /, 'another address');
  assert.match((await scheme0('127.0.0.2', 'OTHER', 'OTHERPASS')) ?? '', /^MP-S 0 /, 'another vehicle');
});

test('scheme 1 shares the user account with the HTTP API: HTTP guesses count against MP logins', async () => {
  const http = t.server.ports.http!;
  for (let k = 0; k < 3; k++) {
    const r = await fetchFrom('127.0.0.4', http, `/api/vehicles?username=demo&password=wrong${k}`);
    assert.equal(r, 401);
  }
  assert.equal(await welcome('127.0.0.4', 'MP-A 1 demo demopass TESTCAR'), null, 'refused unchecked');
  assert.match((await welcome('127.0.0.5', 'MP-A 1 demo demopass TESTCAR')) ?? '', /^MP-S 1 /);
});

async function fetchFrom(localAddress: string, port: number, path: string): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
