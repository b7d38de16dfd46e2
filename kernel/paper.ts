// The per-child hot work of paper mode, compiled to WebAssembly (AssemblyScript).
//
// Everything lives in one linear memory that the host (src/ga/kernel.ts) creates and
// imports: the island's genes (population, bad repository, children, back to back)
// and the scratch marks. Chromosomes are addressed by *gene index* from `genes`, the
// byte address of gene 0; genes are u16 (N <= 65535) or i32 (beyond), one export of
// each function per width. No allocation, no runtime: `--runtime stub`, no data.
//
// The operators are exactly those of src/ga/crossover.ts (the paper's order-1
// crossover) and src/problem/fitness.ts (2N minus the distinct occupied diagonals);
// test/kernel.test.ts checks them against the TypeScript on random inputs.

/** Byte address of gene index 0. */
let genes: usize = 0;
/** n i32 cells: which alleles the kept segment holds (epoch stamps, never cleared but on wrap-around). */
let alleleMarks: usize = 0;
/**
 * 4n bytes, cleared per evaluation: byte d is 1 once the "↗" diagonal d (row - column
 * + n - 1, 0..2n-2) is occupied, byte 2n + d the same for the "↘" diagonal row + column.
 */
let diagonalMarks: usize = 0;
let marksN: i32 = 0;
let alleleEpoch: i32 = 0;

/** Sets the layout (byte addresses); the allele marks must be zero, as fresh memory is. */
export function init(genesAt: usize, allelesAt: usize, diagonalsAt: usize, n: i32): void {
  genes = genesAt;
  alleleMarks = allelesAt;
  diagonalMarks = diagonalsAt;
  marksN = n;
  alleleEpoch = 0;
}

/** Test hook: sets the allele marks' epoch, e.g. just below its wrap-around. */
export function setEpoch(allele: i32): void {
  alleleEpoch = allele;
}

// @ts-ignore: decorator
@inline function nextAlleleEpoch(): i32 {
  if (alleleEpoch == 0x7fffffff) {
    memory.fill(alleleMarks, 0, <usize>marksN << 2);
    alleleEpoch = 0;
  }
  return ++alleleEpoch;
}

// @ts-ignore: decorator
@inline function at<T>(index: u32): usize {
  return genes + (<usize>index << alignof<T>());
}

/**
 * Copies parent 2's alleles not marked with `epoch` to child bytes [pos, end), reading
 * parent 2 from byte `k` on; returns where it stopped. Every allele is written at the
 * next free position, which advances only when the allele is not in the segment:
 * branch-free, as a branch here is mispredicted half the time on random parents.
 */
// @ts-ignore: decorator
@inline function fill<T>(k: usize, pos: usize, end: usize, marks: usize, epoch: i32): usize {
  while (pos < end) {
    const allele = <u32>load<T>(k);
    k += sizeof<T>();
    store<T>(pos, allele);
    pos += select<usize>(sizeof<T>(), 0, load<i32>(marks + (<usize>allele << 2)) != epoch);
  }
  return k;
}

/**
 * The paper's order-1 crossover: child[lo..hi] = p1[lo..hi]; the other positions are
 * filled from the left with p2's remaining alleles in p2's order. Gene indices.
 */
// @ts-ignore: decorator
@inline function crossT<T>(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32): void {
  const epoch = nextAlleleEpoch();
  const marks = alleleMarks;
  const a = at<T>(p1);
  const c = at<T>(child);
  for (let i = lo; i <= hi; i++) {
    const off = <usize>i << alignof<T>();
    const allele = <u32>load<T>(a + off);
    store<i32>(marks + (<usize>allele << 2), epoch);
    store<T>(c + off, allele);
  }
  const next = fill<T>(at<T>(p2), c, c + (<usize>lo << alignof<T>()), marks, epoch);
  fill<T>(next, c + (<usize>(hi + 1) << alignof<T>()), c + (<usize>n << alignof<T>()), marks, epoch);
}

/**
 * Fitness: the number of queens that land on a diagonal already occupied by a queen in
 * an earlier column, over both directions; the same as 2n minus the distinct occupied
 * diagonals. Byte marks cleared per call (a 4n-byte fill is cheaper than the compares
 * of epoch stamps), four columns per round.
 */
// @ts-ignore: decorator
@inline function fitnessT<T>(chromosome: u32, n: i32): i32 {
  memory.fill(diagonalMarks, 0, <usize>(4 * n));
  const g = at<T>(chromosome);
  // Column i, row r: "↗" byte up - i + r, "↘" byte down + i + r.
  const up = diagonalMarks + <usize>(n - 1);
  const down = diagonalMarks + <usize>(2 * n);
  let f = 0;
  let i = 0;
  for (; i < n - 3; i += 4) {
    const p = g + (<usize>i << alignof<T>());
    const r1 = <usize>load<T>(p);
    const r2 = <usize>load<T>(p, sizeof<T>());
    const r3 = <usize>load<T>(p, 2 * sizeof<T>());
    const r4 = <usize>load<T>(p, 3 * sizeof<T>());
    const u = up - <usize>i;
    const d = down + <usize>i;
    f += <i32>load<u8>(u + r1) + <i32>load<u8>(d + r1);
    store<u8>(u + r1, 1);
    store<u8>(d + r1, 1);
    f += <i32>load<u8>(u + r2 - 1) + <i32>load<u8>(d + r2, 1);
    store<u8>(u + r2 - 1, 1);
    store<u8>(d + r2, 1, 1);
    f += <i32>load<u8>(u + r3 - 2) + <i32>load<u8>(d + r3, 2);
    store<u8>(u + r3 - 2, 1);
    store<u8>(d + r3, 1, 2);
    f += <i32>load<u8>(u + r4 - 3) + <i32>load<u8>(d + r4, 3);
    store<u8>(u + r4 - 3, 1);
    store<u8>(d + r4, 1, 3);
  }
  for (; i < n; i++) {
    const r = <usize>load<T>(g + (<usize>i << alignof<T>()));
    const u = up - <usize>i + r;
    const d = down + <usize>i + r;
    f += <i32>load<u8>(u) + <i32>load<u8>(d);
    store<u8>(u, 1);
    store<u8>(d, 1);
  }
  return f;
}

// @ts-ignore: decorator
@inline function swapT<T>(c: usize, i: i32, j: i32): void {
  const x = c + (<usize>i << alignof<T>());
  const y = c + (<usize>j << alignof<T>());
  const t = load<T>(x);
  store<T>(x, load<T>(y));
  store<T>(y, t);
}

/**
 * One child: order-1 crossover of p1 (segment lo..hi) and p2 into `child`, then
 * `swaps` (0, 1 or 2) mutation swaps (i1, j1) then (i2, j2), then its fitness.
 * lo = 0, hi = n - 1 copies p1 (no crossover).
 */
// @ts-ignore: decorator
@inline function childT<T>(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32, swaps: i32, i1: i32, j1: i32, i2: i32, j2: i32): i32 {
  crossT<T>(p1, p2, child, n, lo, hi);
  if (swaps > 0) {
    const c = at<T>(child);
    swapT<T>(c, i1, j1);
    if (swaps > 1) swapT<T>(c, i2, j2);
  }
  return fitnessT<T>(child, n);
}

export function child16(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32, swaps: i32, i1: i32, j1: i32, i2: i32, j2: i32): i32 {
  return childT<u16>(p1, p2, child, n, lo, hi, swaps, i1, j1, i2, j2);
}
export function child32(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32, swaps: i32, i1: i32, j1: i32, i2: i32, j2: i32): i32 {
  return childT<i32>(p1, p2, child, n, lo, hi, swaps, i1, j1, i2, j2);
}
export function cross16(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32): void {
  crossT<u16>(p1, p2, child, n, lo, hi);
}
export function cross32(p1: u32, p2: u32, child: u32, n: i32, lo: i32, hi: i32): void {
  crossT<i32>(p1, p2, child, n, lo, hi);
}
export function fitness16(chromosome: u32, n: i32): i32 {
  return fitnessT<u16>(chromosome, n);
}
export function fitness32(chromosome: u32, n: i32): i32 {
  return fitnessT<i32>(chromosome, n);
}
