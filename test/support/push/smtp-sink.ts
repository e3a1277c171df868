/**
 * A local SMTP server (smtp-server) that keeps every message it accepts: envelope, authenticated
 * user, raw text, and the message parsed (headers decoded, the text body). No STARTTLS; with
 * `auth`, AUTH PLAIN/LOGIN is required (over plain TCP: a test). Listens on 127.0.0.1, port 0.
 *
 *   const sink = await SmtpSink.start({ auth: { user: 'u', pass: 'p w' } });
 *   sink.reject('gone@example.com', 550, 'mailbox unknown');   // RCPT TO answered 550
 *   sink.hang('rcpt');                                          // RCPT TO never answered
 *   … createMailProvider({ smtpUrl: sink.url }, deps) …
 *   sink.messages[0].subject, sink.messages[0].text
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SinkMessage {
  envelope: { from: string; to: string[] };
  /** The authenticated user, if any. */
  user: string | undefined;
  /** The message as it came (CRLF line ends). */
  raw: string;
  /** Header fields by lower-case name (the first of each), unfolded and decoded (RFC 2047). */
  headers: Map<string, string>;
  from: string;
  to: string;
  subject: string;
  /** The body decoded (quoted-printable, base64), with LF line ends. */
  text: string;
}

interface Rejection {
  code: number;
  message: string;
  times: number;
}

/** Where a hanging sink stops answering: before its greeting, at RCPT TO, or after the data. */
export type SmtpHang = 'greeting' | 'rcpt' | 'data' | null;

export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  /** Every RCPT TO address, accepted or not, in order. */
  readonly recipients: string[] = [];
  private readonly rejections = new Map<string, Rejection>();
  private hangAt: SmtpHang = null;
  private readonly waiters = new Set<() => void>();
  private server!: SMTPServer;

  private constructor(private readonly auth: { user: string; pass: string } | undefined) {}

  static async start(options: { auth?: { user: string; pass: string } } = {}): Promise<SmtpSink> {
    const sink = new SmtpSink(options.auth);
    sink.server = new SMTPServer({
      logger: false,
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !options.auth,
      allowInsecureAuth: true,
      closeTimeout: 50,
      disableReverseLookup: true,
      onAuth: (auth, _session, callback) => {
        if (sink.auth && auth.username === sink.auth.user && auth.password === sink.auth.pass) callback(null, { user: auth.username });
        else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onConnect: (_session, callback) => {
        if (sink.hangAt !== 'greeting') callback();
      },
      onRcptTo: (address, _session, callback) => {
        const to = address.address.toLowerCase();
        sink.recipients.push(address.address);
        sink.wake();
        if (sink.hangAt === 'rcpt') return;
        const rejection = sink.rejections.get(to);
        if (rejection && rejection.times > 0) {
          rejection.times -= 1;
          callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
          return;
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const env = session.envelope;
          sink.messages.push({
            envelope: { from: env.mailFrom ? env.mailFrom.address : '', to: env.rcptTo.map((a) => a.address) },
            user: typeof session.user === 'string' ? session.user : undefined,
            raw,
            ...parseMessage(raw),
          });
          sink.wake();
          if (sink.hangAt !== 'data') callback(null, 'Ok: queued');
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      sink.server.server.once('error', reject);
      sink.server.listen(0, '127.0.0.1', () => resolve());
    });
    return sink;
  }

  get host(): string {
    return '127.0.0.1';
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  /** `smtp://[user:pass@]127.0.0.1:<port>` (user and password percent-encoded). */
  get url(): string {
    const auth = this.auth ? `${encodeURIComponent(this.auth.user)}:${encodeURIComponent(this.auth.pass)}@` : '';
    return `smtp://${auth}${this.host}:${this.port}`;
  }

  /** RCPT TO `address` is answered with `code` (4xx or 5xx) the next `times` times (default: always). */
  reject(address: string, code: number, message = 'rejected by the test', times = Infinity): this {
    this.rejections.set(address.toLowerCase(), { code, message, times });
    return this;
  }

  /** From now on the sink stops answering at that point (null: answers again, for new commands). */
  hang(at: SmtpHang): this {
    this.hangAt = at;
    return this;
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private async waitUntil(done: () => boolean, what: () => string, timeoutMs: number): Promise<void> {
    if (done()) return;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what()} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  /** Resolves once `count` messages were accepted, or rejects after `timeoutMs`. */
  async waitForMessages(count: number, timeoutMs = 5000): Promise<SinkMessage[]> {
    await this.waitUntil(() => this.messages.length >= count, () => `${this.messages.length} of ${count} messages came in`, timeoutMs);
    return this.messages;
  }

  /** Resolves once `count` RCPT TO commands came in (accepted or not), or rejects after `timeoutMs`. */
  async waitForRecipients(count: number, timeoutMs = 5000): Promise<string[]> {
    await this.waitUntil(() => this.recipients.length >= count, () => `${this.recipients.length} of ${count} recipients came in`, timeoutMs);
    return this.recipients;
  }

  /** Stops listening; open connections are dropped after a moment. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) decoded; only UTF-8 and ASCII charsets. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, data: string) => {
      if (enc.toUpperCase() === 'B') return Buffer.from(data, 'base64').toString('utf8');
      return decodeQuotedPrintable(data.replace(/_/g, ' '));
    });
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A single-part message's headers and text (what the mail provider sends). */
export function parseMessage(raw: string): Pick<SinkMessage, 'headers' | 'from' | 'to' | 'subject' | 'text'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const bodyRaw = split < 0 ? '' : raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeWords(line.slice(colon + 1).trim()));
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  let text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(bodyRaw)
      : encoding === 'base64'
        ? Buffer.from(bodyRaw.replace(/\s+/g, ''), 'base64').toString('utf8')
        : bodyRaw;
  text = text.replace(/\r\n/g, '\n');
  return { headers, from: headers.get('from') ?? '', to: headers.get('to') ?? '', subject: headers.get('subject') ?? '', text };
}
