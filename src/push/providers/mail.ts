/**
 * E-mail (`mail` subscriptions; docs/protocol/mp.md §12.1): one message per delivery through an SMTP
 * server (nodemailer, a pool of connections), From a configurable sender, Subject as the reference
 * writes it with the vehicle's label. SMTP 4xx and connection trouble are temporary, 5xx permanent
 * (a mailbox the server does not know is a permanent failure, not an invalid subscription: the
 * owner typed the address).
 */
import { hostname } from 'node:os';
import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { vehicleLabel } from '../../core/push/message.js';
import { VtsError } from '../../errors.js';
import type { DeliveryItem, ProviderDeps, PushProvider, SendResult } from '../provider.js';
import { detailLine } from './detail-line.js';

export interface MailSettings {
  /** `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  smtpUrl: string;
  /** The sender (default `vts@<hostname>`). */
  from?: string;
}

/** Milliseconds to wait for a connection and the server's greeting, and for an idle socket. */
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export interface SmtpServerSettings {
  secure: boolean;
  host: string;
  port: number;
  auth?: { user: string; pass: string };
}

/**
 * The SMTP server of `--smtp-url`.
 * @throws VtsError VTS_ERR_PUSH_CONFIG (one line, without the URL: it may hold a password)
 */
export function parseSmtpUrl(smtpUrl: string): SmtpServerSettings {
  let u: URL;
  try {
    u = new URL(smtpUrl.trim());
  } catch {
    throw new VtsError('VTS_ERR_PUSH_CONFIG', 'mail is off: --smtp-url is not a URL (smtp://user:pass@host:port or smtps://…)', { whole: true });
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') {
    throw new VtsError('VTS_ERR_PUSH_CONFIG', `mail is off: --smtp-url must start with smtp:// or smtps://, not ${u.protocol}//`, { whole: true });
  }
  const secure = u.protocol === 'smtps:';
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new VtsError('VTS_ERR_PUSH_CONFIG', 'mail is off: --smtp-url has no host', { whole: true });
  const port = u.port === '' ? (secure ? 465 : 587) : Number(u.port);
  const settings: SmtpServerSettings = { secure, host, port };
  if (u.username !== '' || u.password !== '') {
    try {
      settings.auth = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
    } catch {
      throw new VtsError('VTS_ERR_PUSH_CONFIG', "mail is off: --smtp-url's user or password is not well percent-encoded", { whole: true });
    }
  }
  return settings;
}

/** The server as the start line and logs show it: without user and password. */
export function smtpServerName(s: SmtpServerSettings): string {
  const host = s.host.includes(':') ? `[${s.host}]` : s.host;
  return `${s.secure ? 'smtps' : 'smtp'}://${host}:${s.port}`;
}

/** `YYYY-MM-DD HH:MM:SS UTC`. */
function utcTime(time: number): string {
  const d = new Date(time * 1000);
  return Number.isNaN(d.getTime()) ? String(time) : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The message a delivery is sent as. */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export function mailMessage(item: DeliveryItem, from: string): MailMessage {
  const label = vehicleLabel(item.vehicleId, item.vehicleName);
  return {
    from,
    to: item.address,
    subject: `OVMS notification type ${item.alertType} from ${label}`,
    text: `${item.text}\n\nVehicle: ${label}\nTime: ${utcTime(item.time)}\n`,
  };
}

/** One line of a service's text for the history (at most 120 characters unless told). */
const oneLine = (text: string, max = 120): string => detailLine(text, max);

/** nodemailer's codes of a connection that failed or broke (no SMTP answer to judge by). */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EPROTOCOL', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE']);

/** How a failed send went: the SMTP reply code decides (4xx temporary, 5xx permanent), else the kind of failure. */
export function mailErrorResult(err: unknown): SendResult {
  const e = (err ?? {}) as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const rc = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (rc !== undefined && rc >= 400 && rc <= 599) {
    const reply = typeof e.response === 'string' && e.response !== '' ? e.response : String(rc);
    const detail = `SMTP ${oneLine(reply)}`;
    return rc >= 500 ? { kind: 'permanent', detail } : { kind: 'temporary', detail };
  }
  if (CONNECTION_CODES.has(code)) return { kind: 'temporary', detail: `connection failed (${code}: ${oneLine(message, 80)})` };
  // a message or envelope nodemailer would not send, credentials the server refused without a code
  if (code === 'EENVELOPE' || code === 'EMESSAGE' || code === 'EAUTH' || code === 'ECONFIG') {
    return { kind: 'permanent', detail: oneLine(`${code}: ${message}`) };
  }
  return { kind: 'temporary', detail: oneLine(`failed (${code !== '' ? `${code}: ` : ''}${message})`) };
}

/** SMTP connections of the pool, and so mails sent at once. */
const MAX_CONNECTIONS = 3;

export function createMailProvider(s: MailSettings, deps: ProviderDeps): PushProvider {
  const server = parseSmtpUrl(s.smtpUrl);
  const from = s.from?.trim() || `vts@${hostname()}`;
  const options: SMTPPool.Options = {
    pool: true,
    host: server.host,
    port: server.port,
    secure: server.secure,
    maxConnections: MAX_CONNECTIONS,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    logger: false,
  };
  if (server.auth) options.auth = server.auth;
  if (deps.ca !== undefined) options.tls = { ca: deps.ca };
  const transport = nodemailer.createTransport(options);
  transport.on('error', (err: Error) => deps.log.warn({ err: err.message }, 'SMTP pool: %s', err.message));

  async function sendOne(item: DeliveryItem, signal: AbortSignal): Promise<SendResult> {
    if (signal.aborted) return { kind: 'temporary', detail: 'no answer in time' };
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<SendResult>((resolve) => {
      onAbort = () => resolve({ kind: 'temporary', detail: 'no answer in time' });
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const sent = transport.sendMail(mailMessage(item, from)).then(
      (info): SendResult => {
        const reply = typeof info.response === 'string' && info.response !== '' ? info.response : '250';
        return { kind: 'delivered', detail: `delivered (${oneLine(reply, 60)})` };
      },
      (err: unknown) => mailErrorResult(err),
    );
    try {
      return await Promise.race([sent, aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    channel: 'mail',
    concurrency: MAX_CONNECTIONS,
    description: `on, ${smtpServerName(server)}${server.auth ? ` as ${server.auth.user}` : ''}, from ${from}`,
    batchSize: 1,
    async send(items, signal) {
      return Promise.all(items.map((item) => sendOne(item, signal)));
    },
    async close() {
      transport.close();
    },
  };
}
