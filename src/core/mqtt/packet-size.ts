/**
 * Follows the framing of an MQTT byte stream (fixed header byte, remaining length as a 1–4 byte
 * varint, body; MQTT 3.1.1 §2.2) and says when a packet would be larger than allowed, as soon as
 * its length field is read, before the body is buffered anywhere. Pure.
 */

export class PacketSizeGuard {
  private inLength = false;
  private length = 0;
  private multiplier = 1;
  private lengthBytes = 0;
  /** Body bytes still to skip (0: the next byte starts a packet or its length). */
  private body = 0;

  /** @param max the largest remaining length (body) accepted, in bytes */
  constructor(readonly max: number) {}

  /** Feeds the next bytes; false when a packet is too large or its length field is malformed. */
  feed(chunk: Uint8Array): boolean {
    let i = 0;
    while (i < chunk.length) {
      if (this.body > 0) {
        const n = Math.min(this.body, chunk.length - i);
        this.body -= n;
        i += n;
      } else if (!this.inLength) {
        i++; // the fixed header's first byte
        this.inLength = true;
        this.length = 0;
        this.multiplier = 1;
        this.lengthBytes = 0;
      } else {
        const b = chunk[i++]!;
        this.length += (b & 0x7f) * this.multiplier;
        this.multiplier *= 128;
        this.lengthBytes++;
        if (this.length > this.max) return false;
        if (b & 0x80) {
          if (this.lengthBytes === 4) return false;
        } else {
          this.inLength = false;
          this.body = this.length;
        }
      }
    }
    return true;
  }
}
