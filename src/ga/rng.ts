/**
 * xoshiro128** (Blackman & Vigna, 2018): a small, fast 32-bit generator with a
 * 2^128 - 1 period. Its whole state is four 32-bit words, so it can be saved in a
 * checkpoint and restored exactly. Seeds are expanded with splitmix32.
 */
export class Rng {
  /** The four state words; a copy can be taken with `saveState`. */
  private readonly s: Int32Array;

  constructor(state: ArrayLike<number>) {
    this.s = Int32Array.from(state);
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) throw new RangeError('xoshiro128** state must not be all zero');
  }

  /** The generator for one random stream of a run: island i of a run with seed s uses stream i. */
  static forStream(seed: number, stream: number): Rng {
    let x = mix32(seed >>> 0) ^ mix32(Math.floor(seed / 0x1_0000_0000) + 0x632be5ab);
    x = mix32(x ^ Math.imul(stream + 1, 0x9e3779b9));
    const state = new Int32Array(4);
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) | 0;
      state[i] = mix32(x);
    }
    if ((state[0] | state[1] | state[2] | state[3]) === 0) state[0] = 1;
    return new Rng(state);
  }

  /** The next 32 random bits as an unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const s0 = s[0];
    const s1 = s[1];
    const s2 = s[2];
    const s3 = s[3];
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    s[1] = s1 ^ n2;
    s[0] = s0 ^ n3;
    s[2] = n2 ^ t;
    s[3] = rotl(n3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, bound), for bound up to 2^32 (bias below bound / 2^32). */
  int(bound: number): number {
    return Math.floor((this.nextU32() * bound) / 4294967296);
  }

  saveState(): Int32Array {
    return this.s.slice();
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** splitmix32's finaliser: a good 32-bit mixing function. */
function mix32(z: number): number {
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}

/** A fresh seed for runs that were not given one (printed so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
