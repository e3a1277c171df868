/**
 * The interactive console of the module's SSH server (ssh-link.ts), and the writing to a channel
 * both of its ways (`exec` and `shell`) share: output with CRLF line ends, the exit status, the
 * command's name for the log.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import type { ServerChannel } from 'ssh2';
import type { CommandRunner } from '../console/services.js';
import { MAX_LINE_BYTES } from '../console/tokenizer.js';


/** LF → CRLF, as `ConsoleSSH::write` sends every line end. */
export function crlf(text: string): string {
  return text.replace(/\n/g, '\r\n');
}

/** The first word of a command line, for the log (never its arguments: they may hold secrets). */
export function commandName(command: string): string {
  return (command.trim().split(/\s+/, 1)[0] ?? '').slice(0, 32);
}

function open(channel: ServerChannel): boolean {
  return !channel.destroyed && channel.writable;
}

/** Writes `text` unless the channel is closed. */
export function write(channel: ServerChannel, text: string): void {
  if (text !== '' && open(channel)) channel.write(text);
}

/** Sends the exit status and closes the channel, unless it is closed. */
export function done(channel: ServerChannel, status: number): void {
  if (!open(channel)) return;
  channel.exit(status);
  channel.end();
}

/** One interactive console: microrl's echo and line editing, one command at a time. */
export class ShellSession {
  private line = '';
  private lineBytes = 0;
  private pending = '';
  private busy = false;
  private finished = false;
  private eof = false;
  private afterCr = false;
  /** 0: normal; 1: after ESC; 2: inside a CSI/SS3 sequence. */
  private escape = 0;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly channel: ServerChannel,
    private readonly runner: CommandRunner,
    private readonly prompt: string,
    banner: string,
    private readonly log: Logger,
  ) {
    channel.on('error', () => undefined);
    channel.on('data', (chunk: Buffer) => {
      this.pending += this.decoder.write(chunk);
      void this.pump();
    });
    channel.on('end', () => {
      this.eof = true;
      void this.pump();
    });
    channel.on('close', () => {
      this.finished = true;
    });
    log.debug('SSH shell');
    write(channel, crlf(banner) + prompt);
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (!this.finished && this.pending !== '') {
        const cp = this.pending.codePointAt(0)!;
        const ch = String.fromCodePoint(cp);
        this.pending = this.pending.slice(ch.length);
        await this.key(ch, cp);
      }
      if (this.eof && !this.finished) this.end(false);
    } finally {
      this.busy = false;
    }
  }

  private async key(ch: string, cp: number): Promise<void> {
    const afterCr = this.afterCr;
    this.afterCr = false;
    if (this.escape === 1) {
      this.escape = ch === '[' || ch === 'O' ? 2 : 0;
      return;
    }
    if (this.escape === 2) {
      if (cp >= 0x40 && cp <= 0x7e) this.escape = 0;
      return;
    }
    switch (cp) {
      case 0x0d: // Enter on a terminal
        this.afterCr = true;
        return this.enter();
      case 0x0a: // a bare LF (no pty); the LF of a CRLF pair is part of the same Enter
        return afterCr ? undefined : this.enter();
      case 0x08:
      case 0x7f:
        return this.backspace();
      case 0x03: // Ctrl-C
        this.clear();
        write(this.channel, '^C\r\n' + this.prompt);
        return;
      case 0x15: // Ctrl-U
        this.clear();
        write(this.channel, '\r\x1b[K' + this.prompt);
        return;
      case 0x04: // Ctrl-D
        if (this.line === '') this.end(true);
        return;
      case 0x1b:
        this.escape = 1;
        return;
    }
    if (cp < 0x20) return; // Tab and the other control characters
    const bytes = Buffer.byteLength(ch);
    if (this.lineBytes + bytes > MAX_LINE_BYTES) return;
    this.line += ch;
    this.lineBytes += bytes;
    write(this.channel, ch);
  }

  private clear(): void {
    this.line = '';
    this.lineBytes = 0;
  }

  private backspace(): void {
    if (this.line === '') return;
    const chars = [...this.line];
    const last = chars.pop()!;
    this.line = chars.join('');
    this.lineBytes -= Buffer.byteLength(last);
    write(this.channel, '\b \b');
  }

  private async enter(): Promise<void> {
    const line = this.line;
    this.clear();
    write(this.channel, '\r\n');
    const trimmed = line.trim();
    if (trimmed === 'exit') return this.end(true);
    if (trimmed !== '') {
      this.log.debug({ command: commandName(trimmed) }, 'SSH shell command');
      const output = await this.runner.execute(line).catch((err: unknown) => {
        this.log.error({ err, command: commandName(trimmed) }, 'SSH command failed');
        return `ERROR: ${err instanceof Error ? err.message : String(err)}\n`;
      });
      if (this.finished) return;
      write(this.channel, crlf(output));
    }
    write(this.channel, this.prompt);
  }

  /** `exit` (`ConsoleSSH::Exit`: `logout`, exit status 0), Ctrl-D, or the client's EOF. */
  private end(logout: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (logout) write(this.channel, 'logout\r\n');
    done(this.channel, 0);
  }
}
