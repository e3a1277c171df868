/** What an MpClient (mp-client.ts) is given to connect, and what it reports: its events and counters. */
import type tls from 'node:tls';
import type { MpMessage } from '../core/mp/message.js';
import type { ClientType } from '../core/mp/welcome.js';
import type { MpCloseInfo, MpTransport } from './transport.js';

export interface MpClientBaseOptions {
  host: string;
  port: number;
  /** Default 'tcp'. 'ws'/'wss' connect to `ws(s)://host:port/apiv2`. */
  transport?: MpTransport;
  /** Passed to tls.connect / the wss client, e.g. `{ rejectUnauthorized: false }` or `{ ca }`. */
  tls?: tls.ConnectionOptions;
  /** WebSocket path; default `/apiv2` (the only one the reference serves). */
  wsPath?: string;
  /** The local address to connect from (TCP and TLS), e.g. one of 127.0.0.0/8 in tests. */
  localAddress?: string;
  clientType: ClientType;
  /** Vehicle id as sent in the welcome line (the server upper-cases it); scheme 1 also allows `*`. */
  vehicleId: string;
  /** Limit for connecting plus the server's welcome reply (default 10000 ms). */
  timeoutMs?: number;
  /** Default timeout of next() and waitFor() (default 5000 ms). */
  defaultTimeoutMs?: number;
  /**
   * Answer every received ping `A` with `a` automatically (useful for a car, which the server
   * pings with `AFA`, docs/protocol/mp.md §13.1). The ping is still delivered. Default false.
   */
  autoPong?: boolean;
  /**
   * Keep received messages for next()/waitFor()/… (default true). A long-running program that
   * only listens to `message` events (the module emulator) sets false, so nothing accumulates.
   */
  buffer?: boolean;
}

export interface Scheme0Options {
  scheme: 0;
  /** The vehicle's server password (carpass / netpass). */
  password: string;
  /** Client digest form in the welcome line: 'padded' (24 chars, FW2/FW3; default) or 'unpadded' (22, Perl clients). */
  digestStyle?: 'padded' | 'unpadded';
  /** Fixed client token (default: 22 random base64-alphabet characters). For golden tests. */
  clientToken?: string;
}

export interface Scheme1Options {
  scheme: 1;
  username: string;
  /** Account password or API token. */
  password: string;
}

export type MpClientOptions = MpClientBaseOptions & (Scheme0Options | Scheme1Options);

/** A received line that could not be decoded (recorded in `protocolErrors`, emitted, not queued). */
export interface MpProtocolError {
  line: string;
  reason: 'not-base64' | 'not-mp0' | 'empty-line' | 'no-code';
  /** The decrypted text for scheme 0 lines that decrypted but did not parse. */
  plaintext?: string;
}

/** Line and byte counters; bytes are UTF-8 line length + 2 per line, as REF's accounting (§17). */
export interface MpClientStats {
  linesSent: number;
  linesReceived: number;
  bytesSent: number;
  bytesReceived: number;
}

export interface MpClientEvents {
  /** A decoded message (also queued for next()/waitFor()/…). */
  message: [MpMessage];
  /** A raw received line after login, before decoding. */
  line: [string];
  protocolError: [MpProtocolError];
  close: [MpCloseInfo];
}
