/**
 * The embedded MQTT broker of `vts serve`: aedes behind TCP (1883), TLS (8883, with the
 * server's certificate) and WebSocket listeners, with vts's accounts and topic rules:
 * - CONNECT: user name + account password or an API token, and the login must grant `v3` or `mqtt`
 *   (as `/mqapi/auth`), checked through the login guard shared with the MP and HTTP logins (an
 *   attempt over a limit is refused without checking). Anonymous logins are refused.
 * - A client id belongs to the user that first took it while its session lives: another user's
 *   CONNECT with it is refused (`identifier rejected`), so nobody can take over a module's
 *   persistent session or kick it off with its vehicle id.
 * - PUBLISH and SUBSCRIBE only under `ovms/<user>/`, config read requests for the superuser only
 *   (src/core/mqtt/acl.ts), and the topics of a vehicle shared with the user under its owner's
 *   prefix (read; `control` also its command topics: src/mqtt/shared-vehicles.ts). A refused subscription is answered with the failure code 0x80; a
 *   refused publish closes the connection (aedes; MQTT 3.1.1 cannot refuse a publish otherwise).
 * - Shared topics outside the users' prefixes (Home Assistant's discovery, src/mqtt/ha-announcer.ts)
 *   follow `SharedTopics`: who may subscribe, publish, and which of their messages reach whom.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { Logger } from 'pino';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { authenticateUser } from '../auth/authenticate.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import { hasRight } from '../core/auth/rights.js';
import { userAccount, type LoginGuard } from '../auth/login-guard.js';
import { isSuperuser, topicAccess } from '../core/mqtt/acl.js';
import { listen } from '../util/listen.js';
import { GuardedConnection } from './guarded-connection.js';
import { clusterAdapters, type BrokerCluster } from './cluster-adapters.js';
import { SharedVehicles } from './shared-vehicles.js';
import type { Store } from '../store/store.js';

/**
 * Which user holds which client id (src/hub/cluster/cluster.ts `claim`/`release`: in this process, or
 * shared by the nodes of a cluster).
 */
export interface ClientIdOwners {
  /** Resolves to null when the id is now the user's, else to the user that holds it. */
  claim(clientId: string, user: string): Promise<string | null>;
  release(clientId: string, user: string): Promise<void>;
}

/** Topics outside `ovms/<user>/` that users may use (null: the topic is not one of them). */
export interface SharedTopics {
  /** Whether the user may subscribe to this filter; null when the filter is not a shared one. */
  mayRead(user: string, filter: string): boolean | null;
  /** Whether the user may publish on this topic; null when it is not a shared one. */
  mayWrite(user: string, topic: string): boolean | null;
  /** Whether a message on this topic may reach the user; null when it is not a shared one. Called per delivery: cheap. */
  mayReceive(user: string, topic: string, payload: Buffer): boolean | null;
}

/** Who a broker client logged in as. */
export interface BrokerUser {
  name: string;
  /** The account's id. */
  id: number;
  /** The rights of the login (the account's, or the API token's). */
  permit: string;
}

export interface BrokerDeps {
  store: Store;
  clientIds: ClientIdOwners;
  credentials: PasswordChecker;
  guard: LoginGuard;
  log: Logger;
  /** Epoch milliseconds. */
  now: () => number;
  superuser?: string;
  /** Shared topics (Home Assistant discovery); none by default. */
  shared?: SharedTopics;
  /** Hears revoked shares (src/hub/access/access-revocations.ts): the user's connections holding the vehicle are closed. */
  onRevoke?: (listener: (vehicleId: string, userId: number) => void) => () => void;
}

export interface BrokerListenOptions {
  host?: string;
  port: number;
  /** Needs `tls`; null = off. */
  tlsPort: number | null;
  /** MQTT over WebSocket (any path, subprotocol `mqtt`); null = off. */
  wsPort: number | null;
  tls?: TlsOptions;
  /** Largest MQTT packet body accepted (bytes); a larger one closes the connection. */
  maxPacket?: number;
  /** Time for a TLS handshake, a WebSocket upgrade and the CONNECT (ms; `--timeout-login`). Default 10 s. */
  loginTimeoutMs?: number;
  /** A cluster node's broker: shares its state with the other nodes' brokers through Redis. */
  cluster?: BrokerCluster;
}

/** Metrics, notifications and command outputs of a module are far smaller. */
export const DEFAULT_MAX_PACKET = 1024 * 1024;

export interface EmbeddedBroker {
  readonly aedes: Aedes;
  readonly ports: { mqtt: number; mqtts: number | null; mqttWs: number | null };
  /** Who a client of this broker logged in as (undefined: the broker's own, or not logged in). */
  userOf(client: Client | null): BrokerUser | undefined;
  close(): Promise<void>;
}

const refusal = (returnCode: 2 | 4 | 5, message: string): AuthenticateError =>
  Object.assign(new Error(message), { returnCode }) as AuthenticateError;

export async function startBroker(deps: BrokerDeps, opts: BrokerListenOptions): Promise<EmbeddedBroker> {
  const { log } = deps;
  const maxPacket = opts.maxPacket ?? DEFAULT_MAX_PACKET;
  const users = new WeakMap<Client, BrokerUser>();
  const nameOf = (client: Client): string => users.get(client)?.name ?? '';
  const shared = deps.shared;
  const isSuper = (name: string): boolean => isSuperuser(name, deps.superuser);
  const addresses = new WeakMap<object, string>();
  // topics of vehicles shared with the user (docs/accounts.md "Sharing")
  const sharing = new SharedVehicles(deps.store);
  const mayShared = (client: Client, topic: string, mode: 'read' | 'write'): Promise<boolean> => {
    const u = users.get(client);
    return u ? sharing.allows(client, u.id, u.name, topic, mode) : Promise.resolve(false);
  };
  const stopRevokes = deps.onRevoke?.((vehicleId, userId) => {
    for (const c of sharing.holding(vehicleId, (c) => users.get(c)?.id === userId)) {
      log.info({ client: c.id, vehicle: vehicleId }, 'MQTT: share revoked, closing the connection');
      sharing.forget(c);
      c.close();
    }
  });

  const adapters = opts.cluster ? clusterAdapters(opts.cluster) : null;
  const aedes = await Aedes.createBroker({
    ...(adapters && opts.cluster
      ? // the brokers of the other nodes publish the wills of a dead node's clients within a minute
        { id: opts.cluster.id, mq: adapters.mq, persistence: adapters.persistence, heartbeatInterval: 5000 }
      : {}),
    drainTimeout: 30_000,
    connectTimeout: opts.loginTimeoutMs ?? 10_000,
    maxClientsIdLength: 128,
    maxTopicLevels: 32,
    authenticate(client, username, password, done) {
      const address = addresses.get(client.conn) ?? '';
      const name = username ?? '';
      const secret = password?.toString('utf8') ?? '';
      // a right secret without the right v3/mqtt is not a guess: the throttle gives it back
      const login = deps.guard.attempt(address, userAccount(name), () => authenticateUser(deps.store, deps.credentials, name, secret, deps.now()));
      login
        .then((outcome) => {
          if (!outcome.ok || !hasRight(outcome.value.permit, 'v3', 'mqtt')) {
            const throttled = !outcome.ok && outcome.throttled;
            log.info(
              { address, user: name, client: client.id, ...(throttled ? { limit: outcome.limit } : {}) },
              throttled
                ? 'MQTT login refused: too many failed logins'
                : outcome.ok
                  ? 'MQTT login refused: the login has neither the right mqtt nor v3 (an API token needs one)'
                  : 'MQTT login refused',
            );
            done(refusal(outcome.ok || throttled ? 5 : 4, 'not authorised'), false);
            return;
          }
          return deps.clientIds.claim(client.id, name).then((owner) => {
            if (owner !== null) {
              log.warn({ address, user: name, client: client.id }, 'MQTT login refused: the client id belongs to another user');
              done(refusal(2, 'client id in use by another user'), false);
              return;
            }
            users.set(client, { name, id: outcome.value.owner.id, permit: outcome.value.permit });
            done(null, true);
          });
        })
        .catch((err: unknown) => {
          log.error({ err, client: client.id }, 'MQTT authentication failed');
          done(Object.assign(new Error('server unavailable'), { returnCode: 3 }) as AuthenticateError, false);
        });
    },
    authorizePublish(client, packet, done) {
      if (!client) return done(null); // the broker's own (a will of a gone client is checked with it)
      const name = nameOf(client);
      let decision = topicAccess(name, packet.topic, deps.superuser);
      if (decision === 'denied' && name !== '' && shared?.mayWrite(name, packet.topic) === true) decision = 'granted';
      if (decision === 'denied') {
        // a topic of a vehicle shared with the user (control: its command topics), read from the store
        mayShared(client, packet.topic, 'write').then(
          (ok) => {
            if (!ok) log.info({ client: client.id, user: name, topic: packet.topic }, 'MQTT publish denied');
            done(ok ? null : new Error('publish denied'));
          },
          (err: unknown) => {
            log.warn({ err, client: client.id }, 'MQTT: share lookup failed');
            done(new Error('publish denied'));
          },
        );
        return;
      }
      // back-pressure: while the store holds as many writes as it may (the database is slow or
      // away), this connection's packets wait (aedes reads a client's next packets once this one
      // is done); the other clients go on
      if (deps.store.congested()) return deps.store.afterCommit(() => done(null));
      done(null);
    },
    authorizeSubscribe(client, sub, done) {
      const name = nameOf(client);
      let decision = topicAccess(name, sub.topic, deps.superuser, 'read');
      if (decision === 'denied' && name !== '' && shared?.mayRead(name, sub.topic) === true) decision = 'granted';
      if (decision === 'denied') {
        mayShared(client, sub.topic, 'read').then(
          (ok) => {
            if (!ok) log.info({ client: client.id, user: name, topic: sub.topic }, 'MQTT subscription denied');
            done(null, ok ? sub : null);
          },
          (err: unknown) => {
            log.warn({ err, client: client.id }, 'MQTT: share lookup failed');
            done(null, null);
          },
        );
        return;
      }
      done(null, sub);
    },
    // a shared topic's message reaches only those it is meant for (retained ones included); a
    // vehicle shared to view: not its apps' command topics
    authorizeForward(client: Client, packet: Parameters<NonNullable<Aedes['authorizeForward']>>[1]) {
      const name = nameOf(client);
      if (isSuper(name)) return packet;
      if (sharing.receives(client, packet.topic) === false) return null;
      if (!shared) return packet;
      const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
      const allowed = shared.mayReceive(name, packet.topic, payload);
      return allowed === false ? null : packet;
    },
  });
  aedes.on('clientDisconnect', (client) => {
    sharing.forget(client);
    const user = users.get(client)?.name;
    if (client.clean && user !== undefined) {
      deps.clientIds.release(client.id, user).catch((err: unknown) => log.warn({ err, client: client.id }, 'MQTT: releasing the client id failed'));
    }
  });
  aedes.on('clientError', (client, err) => log.debug({ client: client.id, err: err.message }, 'MQTT client error'));
  aedes.on('connectionError', (client, err) => log.debug({ client: client.id, err: err.message }, 'MQTT connection error'));

  const servers: (Server | HttpServer)[] = [];
  const sockets = new Set<{ destroy(): void }>();
  const track = <T extends { destroy(): void; once(e: 'close', l: () => void): unknown }>(s: T): T => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    return s;
  };
  let wss: WebSocketServer | null = null;
  const close = async (): Promise<void> => {
    stopRevokes?.();
    wss?.close();
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    await new Promise<void>((r) => aedes.close(() => r()));
    await adapters?.close();
  };
  try {
    // every connection goes through the packet-size guard, known by its peer's address
    const accept = (conn: Duplex, address: string): GuardedConnection => {
      const guarded = new GuardedConnection(track(conn), maxPacket, () =>
        log.info({ address, max: maxPacket }, 'MQTT packet too large: connection closed'),
      );
      guarded.on('error', () => undefined);
      addresses.set(guarded, address);
      return guarded;
    };
    const plain = createNetServer((socket) => aedes.handle(accept(socket, socket.remoteAddress ?? '')));
    servers.push(plain);
    const mqtt = await listen(plain, opts.port, opts.host, 1024);
    let mqtts: number | null = null;
    if (opts.tls && opts.tlsPort !== null) {
      const secure = createTlsServer({ ...opts.tls, handshakeTimeout: opts.loginTimeoutMs ?? 10_000 }, (socket) => aedes.handle(accept(socket, socket.remoteAddress ?? '')));
      secure.on('tlsClientError', (err) => log.debug({ err: err.message }, 'MQTT TLS handshake failed'));
      servers.push(secure);
      mqtts = await listen(secure, opts.tlsPort, opts.host, 1024);
    }
    let mqttWs: number | null = null;
    if (opts.wsPort !== null) {
      const httpServer = createHttpServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
        res.end('MQTT over WebSocket: upgrade required\n');
      });
      // a client must finish its upgrade request in the login time (node's defaults are 60 s and more)
      httpServer.headersTimeout = httpServer.requestTimeout = opts.loginTimeoutMs ?? 10_000;
      servers.push(httpServer);
      const ws = new WebSocketServer({
        server: httpServer,
        maxPayload: maxPacket + 5,
        handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
      });
      wss = ws;
      ws.on('connection', (socket, req) => {
        const stream = createWebSocketStream(socket);
        stream.on('error', () => undefined);
        aedes.handle(accept(stream, req.socket.remoteAddress ?? ''), req);
      });
      mqttWs = await listen(httpServer, opts.wsPort, opts.host, 1024);
    }
    return { aedes, ports: { mqtt, mqtts, mqttWs }, userOf: (client) => (client ? users.get(client) : undefined), close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
