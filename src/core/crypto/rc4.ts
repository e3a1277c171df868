/**
 * RC4 stream cipher (docs/protocol/mp.md §4.4). Node 20's OpenSSL 3 disables RC4 in its default
 * provider, so it is written here. One instance is one continuous keystream: the MP session keeps
 * it for the life of a connection; the paranoid layer makes a fresh one per message.
 */
export class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  /** @param drop keystream bytes to discard after keying ("priming"; the MP uses 1024). */
  constructor(key: Uint8Array, drop = 1024) {
    if (key.length === 0 || key.length > 256) throw new RangeError('RC4 key must be 1..256 bytes');
    const s = this.s;
    for (let n = 0; n < 256; n++) s[n] = n;
    let j = 0;
    for (let n = 0; n < 256; n++) {
      const t = s[n]!;
      j = (j + t + key[n % key.length]!) & 0xff;
      s[n] = s[j]!;
      s[j] = t;
    }
    if (drop > 0) this.skip(drop);
  }

  /** Advances the keystream by n bytes without producing output. */
  skip(n: number): void {
    const s = this.s;
    let i = this.i;
    let j = this.j;
    for (let k = 0; k < n; k++) {
      i = (i + 1) & 0xff;
      const t = s[i]!;
      j = (j + t) & 0xff;
      s[i] = s[j]!;
      s[j] = t;
    }
    this.i = i;
    this.j = j;
  }

  /** XORs the keystream into `buf` in place and returns it. */
  apply(buf: Uint8Array): Uint8Array {
    const s = this.s;
    let i = this.i;
    let j = this.j;
    for (let k = 0; k < buf.length; k++) {
      i = (i + 1) & 0xff;
      const t = s[i]!;
      j = (j + t) & 0xff;
      s[i] = s[j]!;
      s[j] = t;
      buf[k]! ^= s[(t + s[i]!) & 0xff]!;
    }
    this.i = i;
    this.j = j;
    return buf;
  }
}
