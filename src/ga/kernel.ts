/**
 * The paper-mode WebAssembly kernel (kernel/paper.ts, AssemblyScript, compiled by
 * `npm run build` to dist/kernel/paper.wasm): the order-1 crossover, the mutation swaps
 * and the O(N) fitness of one child in one call, over genes that live in the kernel's
 * linear memory. The random numbers stay in TypeScript; the kernel only takes the cut
 * points and swap positions drawn there, so results are the same as with
 * `order1Crossover`, `swapGenes` and `fitness` (test/kernel.test.ts).
 *
 * One instance (with its own memory) per island; the compiled module is cached per
 * thread. The memory never grows, so the typed views handed out stay valid.
 *
 * V8 reserves about 10 GB of address space for every WebAssembly memory, whatever its size
 * (guard regions for its bounds checks). Under an address-space limit below that (`ulimit -v`,
 * as batch systems set) the reservation fails; the island then uses the TypeScript kernel
 * (same results, more slowly), and `webAssemblyMemoryRefused` lets the CLI say so once.
 *
 * A Node without WebAssembly (`node --jitless`) gets the same operators in TypeScript
 * behind the same interface: the same results, more slowly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DiagonalMarks } from '../problem/fitness.ts';
import { MAX_UINT16_N, type Genes } from '../problem/genes.ts';
import { AlleleMarks } from './crossover.ts';
import { swapGenes } from './mutation.ts';

/** The little of the WebAssembly JS API used here (the project's `lib` and @types/node 20 do not declare it). */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
}

/** Where the wasm is, relative to this module: from dist/src/ga (built), src/ga (tests under tsx), dist/bundle (the bundled CLI). */
const CANDIDATES = ['../../kernel/paper.wasm', '../../dist/kernel/paper.wasm', '../kernel/paper.wasm'];

/** A compiled kernel, as one thread hands it to another (structured clone shares the compiled code). */
export type KernelModule = WebAssembly.Module;

let cachedModule: WebAssembly.Module | undefined;

/** Compiles the first of `paths` that exists; a clear error if none does. */
export function loadKernelModule(
  paths: string[] = CANDIDATES.map((rel) => fileURLToPath(new URL(rel, import.meta.url))),
): WebAssembly.Module {
  const path = paths.find((p) => existsSync(p));
  if (!path) {
    throw new Error(`paper-mode WebAssembly kernel not found (looked for ${paths.join(', ')}): run \`npm run build\` first`);
  }
  return new WebAssembly.Module(readFileSync(path));
}

function kernelModule(): WebAssembly.Module {
  cachedModule ??= loadKernelModule();
  return cachedModule;
}

/** A memory of `pages` pages, or null when the address space cannot take its reservation (see above). */
function reserveMemory(pages: number): WebAssembly.Memory | null {
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

let refused: boolean | undefined;

/**
 * Whether this process cannot reserve a WebAssembly memory (an address-space limit, see
 * above): tried once with one page, since the reservation does not depend on the size.
 */
export function webAssemblyMemoryRefused(): boolean {
  refused ??= hasWebAssembly() && reserveMemory(1) === null;
  return refused;
}

/** Whether this Node has WebAssembly (not under `--jitless`). */
export function hasWebAssembly(): boolean {
  return typeof (globalThis as { WebAssembly?: unknown }).WebAssembly !== 'undefined';
}

/**
 * This thread's kernel: the module the host compiled once (islands' workers), else compiled
 * here on first use; undefined without WebAssembly (the TypeScript kernel is used then).
 */
export function kernelModuleForThread(module?: KernelModule): KernelModule | undefined {
  if (!hasWebAssembly()) return undefined;
  if (module) cachedModule ??= module;
  return kernelModule();
}

interface KernelExports {
  init(genesAt: number, allelesAt: number, diagonalsAt: number, n: number): void;
  child16: ChildFn;
  child32: ChildFn;
  cross16: CrossFn;
  cross32: CrossFn;
  fitness16: FitnessFn;
  fitness32: FitnessFn;
  setEpoch: (allele: number) => void;
}

/**
 * One child: order-1 crossover of the chromosomes at gene indices p1 (segment lo..hi,
 * inclusive) and p2 into gene index `child`, then `swaps` (0, 1 or 2) mutation swaps
 * (i1, j1) then (i2, j2), then its fitness, which it returns. lo = 0, hi = n - 1 copies p1.
 */
export type ChildFn = (
  p1: number,
  p2: number,
  child: number,
  n: number,
  lo: number,
  hi: number,
  swaps: number,
  i1: number,
  j1: number,
  i2: number,
  j2: number,
) => number;
/** Order-1 crossover alone, gene indices as for `ChildFn`. */
export type CrossFn = (p1: number, p2: number, child: number, n: number, lo: number, hi: number) => void;
/** Fitness of the chromosome at gene index `chromosome`. */
export type FitnessFn = (chromosome: number, n: number) => number;

export interface PaperKernel {
  readonly n: number;
  /** Bytes per gene: 2 (Uint16Array) or 4 (Int32Array). */
  readonly width: 2 | 4;
  /** All `slots` chromosomes, back to back: gene index s * n is chromosome s. Kernel calls take gene indices into this view. */
  readonly genes: Genes;
  readonly child: ChildFn;
  readonly cross: CrossFn;
  readonly fitness: FitnessFn;
  /** Test hook: sets the crossover's allele-mark epoch (e.g. just below its wrap-around). */
  readonly setEpoch: (allele: number) => void;
}

const PAGE = 65536;
/** wasm32: 65536 pages of 64 KiB. */
const MAX_PAGES = 65536;

/**
 * A kernel instance with room for `slots` chromosomes of `n` genes plus its scratch.
 * The gene width is the one `allocGenes` picks for n (Uint16 up to 65535, Int32
 * beyond); `width` forces one (tests).
 */
export function createPaperKernel(n: number, slots: number, width: 2 | 4 = n <= MAX_UINT16_N ? 2 : 4): PaperKernel {
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(slots) || slots < 1)
    throw new RangeError(`kernel: bad size n = ${n}, slots = ${slots}`);
  if (width === 2 && n > MAX_UINT16_N) throw new RangeError(`kernel: N = ${n} does not fit 16-bit genes`);
  const geneBytes = n * slots * width;
  const allelesAt = align8(geneBytes);
  const diagonalsAt = align8(allelesAt + 4 * n);
  const end = diagonalsAt + 4 * n;
  const pages = Math.ceil(end / PAGE);
  if (pages > MAX_PAGES)
    throw new RangeError(`kernel: ${slots} chromosomes of ${n} genes need ${end} bytes, over the 4 GiB of wasm32 memory`);
  const memory = hasWebAssembly() ? reserveMemory(pages) : null;
  if (memory === null) return typeScriptKernel(n, slots, width);
  const ex = new WebAssembly.Instance(kernelModule(), { env: { memory } }).exports as unknown as KernelExports;
  ex.init(0, allelesAt, diagonalsAt, n);
  const genes = width === 2 ? new Uint16Array(memory.buffer, 0, n * slots) : new Int32Array(memory.buffer, 0, n * slots);
  return width === 2
    ? { n, width, genes, child: ex.child16, cross: ex.cross16, fitness: ex.fitness16, setEpoch: ex.setEpoch }
    : { n, width, genes, child: ex.child32, cross: ex.cross32, fitness: ex.fitness32, setEpoch: ex.setEpoch };
}

function align8(x: number): number {
  return Math.ceil(x / 8) * 8;
}

/** The kernel's operators in TypeScript (src/ga/crossover.ts, src/problem/fitness.ts, src/ga/mutation.ts), for a Node without WebAssembly. */
function typeScriptKernel(n: number, slots: number, width: 2 | 4): PaperKernel {
  const genes = width === 2 ? new Uint16Array(n * slots) : new Int32Array(n * slots);
  const alleles = new AlleleMarks(n);
  const diagonals = new DiagonalMarks(n);
  const cross: CrossFn = (p1, p2, child, size, lo, hi) => alleles.cross(genes, p1, genes, p2, genes, child, size, lo, hi);
  const fitness: FitnessFn = (chromosome, size) => diagonals.count(genes, chromosome, size);
  const child: ChildFn = (p1, p2, c, size, lo, hi, swaps, i1, j1, i2, j2) => {
    cross(p1, p2, c, size, lo, hi);
    if (swaps > 0) swapGenes(genes, c, i1, j1);
    if (swaps > 1) swapGenes(genes, c, i2, j2);
    return fitness(c, size);
  };
  return { n, width, genes, child, cross, fitness, setEpoch: (allele) => void (alleles.epoch = allele) };
}
