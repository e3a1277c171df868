/**
 * Scheme-0 line cipher (docs/protocol/mp.md §4.4–§4.5): two RC4 states keyed by the session key and
 * primed with 1024 bytes, continuous for the connection; each line is base64(RC4(plaintext)).
 */
import { Rc4 } from './rc4.js';
import { takeSlot } from './state-slab.js';

export class MpCipher {
  // never handed out: the slab's slot is given again once this cipher is collected, so a keystream
  // that outlived it would share its state with another connection's
  private readonly rx: Rc4;
  private readonly tx: Rc4;

  constructor(key: Uint8Array) {
    // both states in one slot of a shared slab: a parked car's cipher has no buffer of its own
    const { buf, at } = takeSlot(this);
    this.rx = new Rc4(key, 1024, buf, at);
    this.tx = new Rc4(key, 1024, buf, at + 256);
  }

  /** Encrypts one plaintext line (without CR LF) to its base64 wire form. */
  encrypt(plaintext: string): string {
    const buf = Buffer.from(plaintext, 'utf8');
    this.tx.apply(buf);
    return buf.toString('base64');
  }

  /** Decrypts one base64 wire line to plaintext; null when the line is not base64. */
  decrypt(line: string): string | null {
    if (!isBase64(line)) return null;
    const buf = Buffer.from(line, 'base64');
    this.rx.apply(buf);
    return buf.toString('utf8');
  }
}

const BASE64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

function isBase64(line: string): boolean {
  return line.length > 0 && line.length % 4 !== 1 && BASE64_LINE.test(line);
}

/** One-shot RC4 (fresh state primed with 1024 bytes) as used by the paranoid layer and AP-C. */
export function rc4Once(key: Uint8Array, data: Uint8Array): Uint8Array {
  return new Rc4(key, 1024).apply(data);
}
