/**
 * RC4 stream cipher (docs/protocol/mp.md §4.4). Node 20's OpenSSL 3 disables RC4 in its default
 * provider, so it is written here. One instance is one continuous keystream: the MP session keeps
 * it for the life of a connection; the paranoid layer makes a fresh one per message.
 *
 * The 256-byte state lives in a `Uint8Array` at an offset: its own by default, or a slot of a
 * shared slab (./state-slab.ts), which spares a long-lived keystream its own buffer (each buffer of
 * more than 64 bytes is a separate allocation outside V8's heap, with its own bookkeeping).
 */
export class Rc4 {
  private i = 0;
  private j = 0;

  /**
   * @param drop keystream bytes to discard after keying ("priming"; the MP uses 1024).
   * @param s, at where the state is kept: 256 bytes of `s` from `at`.
   */
  constructor(
    key: Uint8Array,
    drop = 1024,
    private readonly s: Uint8Array = new Uint8Array(256),
    private readonly at = 0,
  ) {
    if (key.length === 0 || key.length > 256) throw new RangeError('RC4 key must be 1..256 bytes');
    if (at < 0 || at + 256 > s.length) throw new RangeError('RC4 state must fit in its buffer');
    for (let n = 0; n < 256; n++) s[at + n] = n;
    let j = 0;
    for (let n = 0; n < 256; n++) {
      const t = s[at + n]!;
      j = (j + t + key[n % key.length]!) & 0xff;
      s[at + n] = s[at + j]!;
      s[at + j] = t;
    }
    if (drop > 0) this.skip(drop);
  }

  /** Advances the keystream by n bytes without producing output. */
  skip(n: number): void {
    const s = this.s;
    const o = this.at;
    let i = this.i;
    let j = this.j;
    for (let k = 0; k < n; k++) {
      i = (i + 1) & 0xff;
      const t = s[o + i]!;
      j = (j + t) & 0xff;
      s[o + i] = s[o + j]!;
      s[o + j] = t;
    }
    this.i = i;
    this.j = j;
  }

  /** XORs the keystream into `buf` in place and returns it. */
  apply(buf: Uint8Array): Uint8Array {
    const s = this.s;
    const o = this.at;
    let i = this.i;
    let j = this.j;
    for (let k = 0; k < buf.length; k++) {
      i = (i + 1) & 0xff;
      const t = s[o + i]!;
      j = (j + t) & 0xff;
      const u = s[o + j]!;
      s[o + i] = u;
      s[o + j] = t;
      buf[k]! ^= s[o + ((t + u) & 0xff)]!;
    }
    this.i = i;
    this.j = j;
    return buf;
  }
}
