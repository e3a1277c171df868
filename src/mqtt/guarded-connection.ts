/**
 * A connection as the embedded broker sees it, with the packet size checked on the way in
 * (PacketSizeGuard): a client announcing a packet larger than the limit is disconnected before its
 * body is read, so nobody can make the broker buffer megabytes (aedes has no limit of its own).
 * Everything else passes through: writes, backpressure, end and destroy.
 */
import { Duplex } from 'node:stream';
import { PacketSizeGuard } from '../core/mqtt/packet-size.js';

export class GuardedConnection extends Duplex {
  private readonly guard: PacketSizeGuard;

  constructor(
    private readonly inner: Duplex,
    maxPacket: number,
    onTooLarge: () => void,
  ) {
    super();
    this.guard = new PacketSizeGuard(maxPacket);
    inner.on('data', (chunk: Buffer) => {
      if (!this.guard.feed(chunk)) {
        onTooLarge();
        this.destroy();
        return;
      }
      if (!this.push(chunk)) inner.pause();
    });
    inner.once('end', () => this.push(null));
    inner.once('close', () => this.destroy());
    inner.on('error', (err) => this.destroy(err));
  }

  override _read(): void {
    this.inner.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.inner.write(chunk, encoding, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.inner.end(callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.inner.destroy();
    callback(err);
  }
}
