/**
 * `vts exec --via ssh`: the module's SSH server (docs/protocol/commands.md §4): public-key login, the
 * command line as the `exec` request, the output from the channel with its CRLF line ends as LF.
 * The module always reports exit status 0; another status (an `scp` refusal) is a failure.
 * The host key is checked only when a fingerprint is given (`SHA256:…`, as `ssh-keygen -lf`
 * prints it): modules make their own host keys, there is no known_hosts to check against.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ssh2 from 'ssh2';
import type { ClientChannel } from 'ssh2';
import { ExecError, reason, timedOut, type ExecOutcome, type ExecRequest } from './common.js';

const { Client, utils } = ssh2;

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  /** Path of the private key file (OpenSSH or PEM; not encrypted). */
  identity: string;
  /** `SHA256:<base64>` of the module's host key; none: any host key is accepted. */
  fingerprint?: string;
}

/** The OpenSSH SHA256 fingerprint of a public key blob. */
export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

function readIdentity(file: string): Buffer {
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ExecError(`the identity file ${file} does not exist: give your SSH private key with --identity`);
    }
    throw new ExecError(`cannot read the identity file ${file}: ${reason(err)}`);
  }
  const parsed = utils.parseKey(key);
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first || first instanceof Error) {
    const why = first instanceof Error && /passphrase/i.test(first.message) ? 'the key is encrypted (keys with a passphrase are not supported)' : 'not a private key';
    throw new ExecError(`the identity file ${file} cannot be used: ${why}`);
  }
  if (!first.isPrivateKey()) throw new ExecError(`the identity file ${file} holds a public key, not a private key`);
  return key;
}

export async function runViaSsh(req: ExecRequest, target: SshTarget): Promise<ExecOutcome> {
  const privateKey = readIdentity(target.identity);
  const where = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  const deadline = Date.now() + req.timeoutMs;
  const client = new Client();
  let hostKeyRefused: string | undefined;
  try {
    return await new Promise<ExecOutcome>((resolve, reject) => {
      let settled = false;
      const settle = (err: Error | null, outcome?: ExecOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(outcome!);
      };
      const timer = setTimeout(() => settle(timedOut(`no answer from the module at ${where}`, req.timeoutMs)), req.timeoutMs);

      client.on('error', (err: Error & { level?: string }) => {
        if (hostKeyRefused) return settle(new ExecError(`the SSH host key of ${where} is ${hostKeyRefused}, not the expected ${target.fingerprint}`));
        if (err.level === 'client-authentication') {
          return settle(new ExecError(`the module at ${where} refused the key ${target.identity} for user ${target.username}`));
        }
        if (err.level === 'client-timeout') return settle(timedOut(`no SSH login at ${where}`, req.timeoutMs));
        settle(new ExecError(`SSH connection to ${where} failed: ${reason(err)}`));
      });
      client.on('close', () => settle(new ExecError(`the module at ${where} closed the SSH connection`)));
      client.on('ready', () => {
        client.exec(req.consoleLine ?? '', (err, stream: ClientChannel) => {
          if (err) return settle(new ExecError(`the module at ${where} refused the command: ${reason(err)}`));
          const out: Buffer[] = [];
          const errOut: Buffer[] = [];
          let status: number | null = null;
          stream.on('data', (d: Buffer) => out.push(d));
          stream.stderr.on('data', (d: Buffer) => errOut.push(d));
          stream.on('exit', (code: number | null) => {
            status = code;
          });
          stream.on('close', () => {
            const output = Buffer.concat(out).toString('utf8').replace(/\r\n/g, '\n');
            if (status !== null && status !== 0) {
              const why = Buffer.concat(errOut).toString('utf8').trim() || (output.startsWith('\u0002') ? output.slice(1) : output).trim();
              return settle(new ExecError(`the command ended with exit status ${status} on ${where}${why ? `: ${why.split('\n')[0]}` : ''}`));
            }
            settle(null, { output, result: 0 });
          });
        });
      });
      client.connect({
        host: target.host,
        port: target.port,
        username: target.username,
        privateKey,
        readyTimeout: Math.max(1, deadline - Date.now()),
        hostVerifier: (key: Buffer): boolean => {
          if (!target.fingerprint) return true;
          const actual = fingerprintOf(key);
          const expected = Buffer.from(target.fingerprint);
          const ok = actual.length === expected.length && timingSafeEqual(Buffer.from(actual), expected);
          if (!ok) hostKeyRefused = actual;
          return ok;
        },
      });
    });
  } finally {
    client.end();
  }
}
