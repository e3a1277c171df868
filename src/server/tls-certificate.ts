/**
 * The server's TLS certificate (`--tls-cert`, `--tls-key`): loaded at start, and loaded again on
 * SIGHUP or when the files change, into every TLS listener (MP over TLS, HTTPS, MQTT over TLS) at
 * once. A listener gets the new certificate with `setSecureContext`: the connections open keep
 * theirs, new ones get the new one. A new pair that cannot be used (unreadable, not PEM, a key of
 * another certificate, a certificate expired or not valid yet while the one in use is valid) is
 * refused: the listeners keep the old one and the log says why.
 *
 * The files are watched by reading them every few seconds and comparing them with the pair in
 * use, through symbolic links: certbot renews by pointing `live/<name>/fullchain.pem` at a new
 * file, which an inotify watch of the old file would not see. A change is acted on after a short
 * settling time, so that the certificate and its key written one after the other are read together.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Server as TlsServer, createSecureContext } from 'node:tls';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { Server } from 'node:net';
import type { Logger } from 'pino';
import { VtsError } from '../errors.js';

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

export interface TlsFiles {
  cert?: string;
  key?: string;
}

/** Reads and checks the pair; throws VTS_ERR_TLS with one line that says what to fix. */
export function loadTlsPair(files: TlsFiles): TlsPair | undefined {
  if (!files.cert && !files.key) return undefined;
  if (!files.cert || !files.key) {
    throw new VtsError('VTS_ERR_TLS', '--tls-cert and --tls-key must be given together');
  }
  const read = (file: string, option: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new VtsError('VTS_ERR_TLS', `cannot read ${file} (${why}): check ${option}`, { cause: err });
    }
  };
  const pair = { cert: read(files.cert, '--tls-cert'), key: read(files.key, '--tls-key') };
  // which of the two is wrong, said here and not by a listener
  try {
    new X509Certificate(pair.cert);
  } catch (err) {
    throw new VtsError('VTS_ERR_TLS', `${files.cert} is not a PEM certificate (${(err as Error).message}): --tls-cert takes the certificate (chain), e.g. fullchain.pem`, { cause: err });
  }
  try {
    createPrivateKey(pair.key);
  } catch (err) {
    const encrypted = /decrypt|passphrase|password/i.test((err as Error).message) || pair.key.includes('ENCRYPTED');
    throw new VtsError(
      'VTS_ERR_TLS',
      encrypted
        ? `${files.key} is an encrypted private key: --tls-key needs it without a passphrase (openssl pkey -in ${files.key} -out key.pem)`
        : `${files.key} is not a PEM private key (${(err as Error).message}): --tls-key takes the key, e.g. privkey.pem`,
      { cause: err },
    );
  }
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new VtsError('VTS_ERR_TLS', `the key in ${files.key} does not belong to the certificate in ${files.cert} (${(err as Error).message}): give the certificate's own key with --tls-key`, { cause: err });
  }
  return pair;
}

/** Why the (first) certificate of the chain cannot be used now (expired, not valid yet), or null. */
function outOfValidity(cert: Buffer, now = Date.now()): { why: 'expired' | 'not yet valid'; date: string } | null {
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch {
    return null;
  }
  if (Date.parse(x.validTo) < now) return { why: 'expired', date: x.validTo };
  if (Date.parse(x.validFrom) > now) return { why: 'not yet valid', date: x.validFrom };
  return null;
}

/** The first certificate of a PEM chain, for the log: subject, expiry and fingerprint. */
function describe(cert: Buffer): { subject: string; validTo: string; fingerprint256: string } | undefined {
  try {
    const x = new X509Certificate(cert);
    return { subject: x.subject.replace(/\n/g, ', '), validTo: x.validTo, fingerprint256: x.fingerprint256 };
  } catch {
    return undefined;
  }
}

/** A certificate outside its validity (an old copy, a clock far off) is used, but said. */
export function warnIfNotValid(log: Logger, cert: Buffer, now = Date.now()): void {
  let x: X509Certificate;
  try {
    x = new X509Certificate(cert);
  } catch {
    return;
  }
  if (Date.parse(x.validTo) < now) log.warn({ validTo: x.validTo, subject: x.subject }, 'the TLS certificate has expired: clients will refuse it; renew it and send SIGHUP');
  else if (Date.parse(x.validFrom) > now) log.warn({ validFrom: x.validFrom, subject: x.subject }, 'the TLS certificate is not valid yet: check the clock of this machine');
}

export interface TlsReloaderOptions {
  /** How often the files' status is read (ms); 0: not watched (SIGHUP only). Default 5 s. */
  watchIntervalMs?: number;
  /** Settling time after a change is seen (ms). Default 1 s. */
  settleMs?: number;
}

const signature = (cert: Buffer, key: Buffer): string => `${cert.toString('base64')}\n${key.toString('base64')}`;

export class TlsCertificate {
  private readonly servers = new Set<TlsServer>();
  private timer: NodeJS.Timeout | null = null;
  /** The files' bytes of a pair that was refused: not tried again until they change. */
  private refused: string | null = null;
  /** The last error reading the files while watching them (said once, not every few seconds). */
  private unreadable: string | null = null;
  private checking = false;

  constructor(
    private readonly files: TlsFiles,
    /** The pair loaded at start. */
    public pair: TlsPair,
    private readonly log: Logger,
    private readonly opts: TlsReloaderOptions = {},
  ) {}

  /** A listener that was started: TLS ones get every new certificate from now on. */
  adopt(server: Server): void {
    if (server instanceof TlsServer) {
      this.servers.add(server);
      server.once('close', () => this.servers.delete(server));
    }
  }

  /**
   * Starts watching the files (when an interval is set): they are read every interval and
   * compared with the pair in use, which sees every kind of change (a file written in place, a
   * symbolic link pointed elsewhere, within the same clock tick) without relying on timestamps.
   */
  watch(): void {
    const interval = this.opts.watchIntervalMs ?? 5000;
    if (interval <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.check(), interval);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      let cert: Buffer;
      let key: Buffer;
      try {
        [cert, key] = await Promise.all([readFile(this.files.cert!), readFile(this.files.key!)]);
      } catch (err) {
        // being replaced, or gone for a moment: the next check sees; a lasting problem is said once
        const why = (err as Error).message;
        if (why !== this.unreadable) this.log.warn({ error: why }, 'TLS certificate files cannot be read: the listeners keep the certificate they have');
        this.unreadable = why;
        return;
      }
      this.unreadable = null;
      if (cert.equals(this.pair.cert) && key.equals(this.pair.key)) return;
      const seen = signature(cert, key);
      if (seen === this.refused) return;
      // written one after the other: wait for both to settle before loading them
      await new Promise((r) => setTimeout(r, this.opts.settleMs ?? Math.min(1000, this.opts.watchIntervalMs ?? 1000)));
      this.reload('the certificate files changed');
    } finally {
      this.checking = false;
    }
  }

  /**
   * Loads the files again into every TLS listener; false (and the old certificate kept) when the
   * new pair cannot be used. `why`: what asked for it, for the log.
   */
  reload(why: string): boolean {
    let pair: TlsPair;
    try {
      pair = loadTlsPair(this.files)!;
      // an old copy, or one issued for later (or by a machine whose clock is off), must not
      // replace a certificate that works now: clients would refuse it
      const unusable = outOfValidity(pair.cert);
      if (unusable && !outOfValidity(this.pair.cert)) {
        throw new VtsError(
          'VTS_ERR_TLS',
          unusable.why === 'expired'
            ? `the certificate in ${this.files.cert} has expired (${unusable.date}): renew it, then send SIGHUP`
            : `the certificate in ${this.files.cert} is not valid yet (from ${unusable.date}): check the clock of this machine and of the one that issued it, then send SIGHUP`,
        );
      }
    } catch (err) {
      this.log.error({ reason: why, error: (err as Error).message }, 'TLS certificate not reloaded: the listeners keep the one they have');
      this.refused = this.signatureOfFiles();
      return false;
    }
    for (const server of this.servers) server.setSecureContext(pair);
    this.pair = pair;
    this.refused = null;
    const shown = describe(pair.cert);
    this.log.info({ reason: why, listeners: this.servers.size, ...shown }, 'TLS certificate reloaded');
    warnIfNotValid(this.log, pair.cert);
    return true;
  }

  /** The files' bytes as the watch compares them (null when they cannot be read now). */
  private signatureOfFiles(): string | null {
    try {
      return signature(readFileSync(this.files.cert!), readFileSync(this.files.key!));
    } catch {
      return null;
    }
  }

  /** Says which certificate the listeners start with (at start). */
  announce(): void {
    this.log.info({ listeners: this.servers.size, ...describe(this.pair.cert) }, 'TLS certificate loaded');
    warnIfNotValid(this.log, this.pair.cert);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
