/**
 * Starts a real vts server (real sockets, a real SQLite file in a temporary folder) for a test;
 * with VTS_TEST_DATABASE=postgres://…, on a PostgreSQL schema of its own in that database, dropped
 * at `close()` (test/support/postgres.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { hashPassword } from '../../src/auth/password.js';
import { createLogger } from '../../src/util/log.js';
import { startServer, type RunningServer, type ServerConfig } from '../../src/server/server.js';
import { TEST_DATABASE, freshSchema } from './postgres.js';

export const FIXTURES = new URL('../fixtures/', import.meta.url);
export const TLS_CERT = new URL('tls/cert.pem', FIXTURES).pathname;
export const TLS_KEY = new URL('tls/key.pem', FIXTURES).pathname;

/** Cheap scrypt cost for test users (the real cost is the default of hashPassword). */
const TEST_COST = { N: 1024, r: 8, p: 1 };

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  /** The PostgreSQL URL of the server's database; undefined on SQLite (the file is in dataDir). */
  database: string | undefined;
  /** Every log line the server wrote (JSON text), for assertions about logging. */
  logs: string[];
  mpPort: number;
  addUser(name: string, password: string, rights?: string): Promise<number>;
  addVehicle(id: string, ownerId: number, carPassword: string, type?: 'CAR' | 'SERVER'): Promise<void>;
  close(): Promise<void>;
}

export async function startTestServer(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-test-'));
  const schema = TEST_DATABASE && config.database === undefined ? freshSchema(TEST_DATABASE) : undefined;
  const database = config.database ?? schema?.url;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(line);
      if (process.env.VTS_TEST_LOG) process.stderr.write(chunk);
      cb();
    },
  });
  const log = createLogger(process.env.VTS_TEST_LOG ?? 'debug', sink);
  let server: RunningServer;
  try {
    server = await startServer(
      { dataDir, database, bind: '127.0.0.1', mpPort: 0, mpTlsPort: 0, httpPort: 0, httpsPort: 0, writeBehindMs: 20, ...config },
      log,
    );
  } catch (err) {
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    server,
    dataDir,
    database,
    logs,
    mpPort: server.ports.mp,
    async addUser(name, password, rights = '*') {
      const owner = await server.store.addOwner(name, await hashPassword(password, TEST_COST), rights);
      return owner.id;
    },
    async addVehicle(id, ownerId, carPassword, type = 'CAR') {
      await server.store.addVehicle({ id, ownerId, name: id, carPassword, type });
    },
    async close() {
      try {
        await server.close();
      } finally {
        await schema?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
