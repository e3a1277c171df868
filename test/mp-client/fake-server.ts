/**
 * A tiny in-test MP server (scheme 0 per docs/protocol/mp.md §4.2–§4.5, scheme 1 per §5) built only on
 * src/core, for testing the client library without the real server. It echoes every message back
 * unless `onMessage` says otherwise, and records what it saw.
 */
import net from 'node:net';
import tls from 'node:tls';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { digestBase64, randomToken, sessionKey, verifyDigest } from '../../src/core/crypto/digest.js';
import { MpCipher } from '../../src/core/crypto/mp-cipher.js';
import { formatScheme0, parseScheme0, parseScheme1, type MpMessage } from '../../src/core/mp/message.js';
import { parseWelcome, scheme0Reply, scheme1Reply } from '../../src/core/mp/welcome.js';

export type FakeTransport = 'tcp' | 'tls' | 'ws' | 'wss';

export interface FakeSession {
  readonly clientType: string;
  readonly vehicleId: string;
  /** Sends one message (encrypted for scheme 0, bare for scheme 1). */
  send(code: string, data?: string): void;
  /** Sends one line as it is (plus the line ending on TCP/TLS; one frame on a WebSocket). */
  sendLine(line: string): void;
  /** Writes raw text without a line ending (TCP/TLS), or one frame (WebSocket). */
  writeRaw(text: string): void;
  /** Encrypts (scheme 0) a message without sending it, advancing the tx cipher. */
  encode(code: string, data?: string): string;
  /** Encrypts (scheme 0) an arbitrary plaintext without sending it; scheme 1: returns it. */
  encodePlain(plaintext: string): string;
  close(): void;
}

export interface FakeServerOptions {
  transport?: FakeTransport;
  /** TLS key and certificate for 'tls' and 'wss'. */
  tlsCert?: { key: string; cert: string };
  scheme?: 0 | 1;
  /** Scheme 0: vehicle id → car password. Default { DEMO1: 'NETPASS', TESTCAR: 'NETPASS' }. */
  cars?: Record<string, string>;
  /** Scheme 0: a fixed server token (default random). */
  serverToken?: string;
  /** Scheme 1: user → password and vehicles. Default demo/demopass with DEMO1, TESTCAR. */
  users?: Record<string, { password: string; vehicles: string[] }>;
  /**
   * Login behaviour: 'normal' (default); 'close' (close on the welcome line without a reply);
   * 'silent' (never reply); or a function returning the reply line to send instead of the
   * correct one (given the correct one).
   */
  login?: 'normal' | 'close' | 'silent' | ((correctReply: string, welcome: string) => string);
  /** Messages (code + data) sent right after the reply, in the same write as the reply on TCP. */
  greet?: string[];
  /** Line ending on TCP/TLS (default CR LF). */
  lineEnding?: string;
  /** Called for every decoded message; default: echo it back. */
  onMessage?: (msg: MpMessage, session: FakeSession) => void;
}

export interface FakeServer {
  readonly port: number;
  /** Welcome lines received. */
  readonly welcomes: string[];
  /** Raw lines / frames received after the welcome line, per connection order. */
  readonly rxLines: string[];
  /** Raw WebSocket frames received (including the welcome). */
  readonly rxFrames: string[];
  /** Decoded messages received. */
  readonly rxMessages: MpMessage[];
  /** Raw lines sent (after the welcome reply). */
  readonly txLines: string[];
  /** Lines that did not decode. */
  readonly badLines: string[];
  /** Sessions that have logged in. */
  readonly sessions: FakeSession[];
  close(): Promise<void>;
}

interface Wire {
  write(text: string): void; // raw text (TCP) or one frame (WS)
  frame: boolean; // true for WebSocket
  close(): void;
}

const DEFAULT_CARS = { DEMO1: 'NETPASS', TESTCAR: 'NETPASS' };
const DEFAULT_USERS = { demo: { password: 'demopass', vehicles: ['DEMO1', 'TESTCAR'] } };

export async function startFakeServer(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const transport = opts.transport ?? 'tcp';
  const eol = opts.lineEnding ?? '\r\n';
  const rec = {
    welcomes: [] as string[],
    rxLines: [] as string[],
    rxFrames: [] as string[],
    rxMessages: [] as MpMessage[],
    txLines: [] as string[],
    badLines: [] as string[],
    sessions: [] as FakeSession[],
  };

  /** Returns the per-line handler of one connection. */
  function connection(wire: Wire): (line: string) => void {
    let cipher: MpCipher | undefined;
    let scheme: 0 | 1 | undefined;
    let session: FakeSession | undefined;
    const lineOut = (line: string): string => (wire.frame ? line : line + eol);

    const makeSession = (clientType: string, vehicleId: string): FakeSession => {
      const s: FakeSession = {
        clientType,
        vehicleId,
        encodePlain: (plaintext) => (scheme === 0 ? cipher!.encrypt(plaintext) : plaintext),
        encode: (code, data = '') => s.encodePlain(scheme === 0 ? formatScheme0(code, data) : `${code}${data}`),
        send: (code, data = '') => s.sendLine(s.encode(code, data)),
        sendLine: (line) => {
          rec.txLines.push(line);
          wire.write(lineOut(line));
        },
        writeRaw: (text) => wire.write(text),
        close: () => wire.close(),
      };
      return s;
    };

    const login = (line: string): void => {
      rec.welcomes.push(line);
      const w = parseWelcome(line);
      if (w.kind !== 'login' || opts.login === 'close') return wire.close();
      if (opts.login === 'silent') return;
      let reply: string;
      if (w.scheme === '0' && (opts.scheme ?? 0) === 0) {
        const cars: Record<string, string> = opts.cars ?? DEFAULT_CARS;
        const pass = cars[w.vehicleId];
        if (pass === undefined || !verifyDigest(pass, w.field1, w.field2)) return wire.close();
        const token = opts.serverToken ?? randomToken();
        reply = scheme0Reply(token, digestBase64(pass, token));
        cipher = new MpCipher(sessionKey(pass, token, w.field1));
        scheme = 0;
      } else if (w.scheme === '1' && opts.scheme === 1) {
        const users: Record<string, { password: string; vehicles: string[] }> = opts.users ?? DEFAULT_USERS;
        const u = users[w.field1];
        if (!u || u.password !== w.field2) return wire.close();
        const vid = w.vehicleId === '*' ? u.vehicles[0] : u.vehicles.find((v) => v === w.vehicleId);
        if (!vid) return wire.close();
        reply = scheme1Reply(w.field1, vid, u.vehicles);
        scheme = 1;
      } else {
        return wire.close();
      }
      if (typeof opts.login === 'function') reply = opts.login(reply, line);
      session = makeSession(w.clientType, w.vehicleId);
      rec.sessions.push(session);
      // The reply and the greeting go out in one write (TCP) to exercise the client's buffering.
      const greet = (opts.greet ?? []).map((m) => session!.encode(m[0]!, m.slice(1)));
      rec.txLines.push(...greet);
      if (wire.frame) {
        wire.write(reply);
        for (const g of greet) wire.write(g);
      } else {
        wire.write([reply, ...greet].map((l) => l + eol).join(''));
      }
    };

    return (line: string) => {
      if (!session) {
        if (scheme === undefined) login(line);
        return;
      }
      rec.rxLines.push(line);
      let msg: MpMessage | null;
      if (scheme === 0) {
        const plain = cipher!.decrypt(line);
        msg = plain === null ? null : parseScheme0(plain);
      } else {
        msg = parseScheme1(line);
      }
      if (!msg) {
        // Like REF: an undecodable line ends the connection.
        rec.badLines.push(line);
        wire.close();
        return;
      }
      rec.rxMessages.push(msg);
      if (opts.onMessage) opts.onMessage(msg, session);
      else session.send(msg.code, msg.data);
    };
  }

  let close: () => Promise<void>;
  let port: number;

  if (transport === 'tcp' || transport === 'tls') {
    const sockets = new Set<net.Socket>();
    const onSocket = (socket: net.Socket): void => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.setEncoding('utf8');
      const handle = connection({ write: (t) => socket.write(t), frame: false, close: () => socket.end() });
      let rest = '';
      socket.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop()!;
        for (const p of parts) handle(p.endsWith('\r') ? p.slice(0, -1) : p);
      });
    };
    const server =
      transport === 'tls' ? tls.createServer({ ...opts.tlsCert! }, onSocket) : net.createServer(onSocket);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    close = () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
  } else {
    const httpsServer = transport === 'wss' ? https.createServer({ ...opts.tlsCert! }) : undefined;
    const wss = httpsServer
      ? new WebSocketServer({ server: httpsServer, path: '/apiv2' })
      : new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/apiv2' });
    wss.on('connection', (ws: WebSocket) => {
      ws.on('error', () => undefined);
      const handle = connection({ write: (t) => ws.send(t), frame: true, close: () => ws.close() });
      ws.on('message', (data) => {
        const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
        rec.rxFrames.push(text);
        handle(text);
      });
    });
    if (httpsServer) {
      await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
      port = (httpsServer.address() as AddressInfo).port;
    } else {
      await new Promise<void>((resolve) => wss.once('listening', resolve));
      port = (wss.address() as AddressInfo).port;
    }
    close = () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => (httpsServer ? httpsServer.close(() => resolve()) : resolve()));
      });
  }

  return { port, ...rec, close };
}
