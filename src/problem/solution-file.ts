/**
 * Solutions of large boards as text and files, written as they are read: never one string.
 * The JSON or the rows of 10^8 queens (about 900 million characters) would not even fit V8's
 * longest string (about 536 million), and the string would cost 9 bytes a queen on top of the
 * solution. And the compact form for files, `.bin` (docs/large-n.md), which `verify --file`
 * checks as it reads it, with one bit a row and a diagonal (under a byte a queen).
 *
 * The `.bin` format: 16 bytes of header, the ASCII `NQSOLV01`, then N as a little-endian
 * uint32 and four zero bytes; then N little-endian uint32 rows, 1-based, column by column.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { TupleSyntaxError } from './errors.ts';
import { RowArray } from './genes.ts';

export const BINARY_MAGIC = 'NQSOLV01';
export const BINARY_HEADER_BYTES = 16;
/** Rows per chunk written or read: chunks of about half a megabyte of text. */
const CHUNK_ROWS = 65_536;
/** Arrays this long or longer are streamed inside a JSON text rather than stringified whole. */
const LONG_ARRAY = 4_096;

/** `rows`, one a line, in chunks. */
export function* rowLines(rows: ArrayLike<number>): Generator<string> {
  for (let from = 0; from < rows.length; from += CHUNK_ROWS) {
    const to = Math.min(rows.length, from + CHUNK_ROWS);
    let text = '';
    for (let i = from; i < to; i++) text += `${rows[i]}\n`;
    yield text;
  }
}

/** `rows` (1-based) in the `.bin` format, in chunks (views of typed rows, without a copy, where the machine is little-endian). */
export function* binaryRows(rows: ArrayLike<number>): Generator<Uint8Array> {
  const header = Buffer.alloc(BINARY_HEADER_BYTES);
  header.write(BINARY_MAGIC, 0, 'latin1');
  header.writeUInt32LE(rows.length, 8);
  yield header;
  for (let from = 0; from < rows.length; from += CHUNK_ROWS) {
    if (rows instanceof Uint32Array && LITTLE_ENDIAN) {
      yield new Uint8Array(rows.buffer, rows.byteOffset + from * 4, (Math.min(rows.length, from + CHUNK_ROWS) - from) * 4);
      continue;
    }
    const to = Math.min(rows.length, from + CHUNK_ROWS);
    const chunk = new Uint32Array(to - from);
    for (let i = from; i < to; i++) chunk[i - from] = rows[i];
    // Little-endian on every machine Node runs on that we know of; checked rather than assumed.
    yield LITTLE_ENDIAN ? new Uint8Array(chunk.buffer) : swapped(chunk);
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function swapped(words: Uint32Array): Uint8Array {
  const bytes = Buffer.alloc(words.length * 4);
  words.forEach((w, i) => bytes.writeUInt32LE(w, i * 4));
  return bytes;
}

/**
 * `JSON.stringify(value)` in chunks: each array of LONG_ARRAY numbers or more is written in
 * parts, so the whole text never exists at once. The same text as JSON.stringify gives.
 */
export function* jsonChunks(value: unknown): Generator<string> {
  const long: ArrayLike<number>[] = [];
  const nonce = `@@nqi-rows-${Math.random().toString(36).slice(2)}-`;
  const placeholder = (rows: ArrayLike<number>) => `${nonce}${long.push(rows) - 1}`;
  // Typed rows (RowArray) are taken from their holder, before JSON.stringify would call their
  // toJSON and build the whole array of numbers (over 4 s and 800 MB at 10^8).
  const text = JSON.stringify(value instanceof RowArray ? placeholder(value) : value, (_key, v: unknown) => {
    if (Array.isArray(v)) return v.length < LONG_ARRAY || typeof v[0] !== 'number' ? v : placeholder(v as number[]);
    if (v === null || typeof v !== 'object' || !Object.values(v).some((x) => x instanceof RowArray)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x instanceof RowArray ? placeholder(x) : x]));
  });
  const parts = text.split(new RegExp(`"${nonce}(\\d+)"`));
  for (let k = 0; k < parts.length; k++) {
    if (k % 2 === 0) {
      yield parts[k];
      continue;
    }
    const rows = long[Number(parts[k])];
    for (let from = 0; from < rows.length; from += CHUNK_ROWS) {
      const to = Math.min(rows.length, from + CHUNK_ROWS);
      let chunk = from === 0 ? '[' : ',';
      for (let i = from; i < to; i++) chunk += i === from ? `${rows[i]}` : `,${rows[i]}`;
      yield to === rows.length ? `${chunk}]` : chunk;
    }
    if (rows.length === 0) yield '[]';
  }
}

/** What `verify` reports of one tuple (check-tuple.ts). */
export interface StreamedReport {
  n: number;
  permutation: boolean;
  fitness: number;
  solution: boolean;
  /** The first rows, for people. */
  head: number[];
}

/**
 * Checks a tuple as its rows arrive, with one bit a row and a diagonal (N / 8 + N / 2 bytes):
 * a permutation when no row repeats; the paper's fitness, which for every diagonal with
 * k >= 1 queens adds k - 1, is (N - occupied ↗ diagonals) + (N - occupied ↘ diagonals); a
 * solution when both are right. Independent of the GA's code, as validate.ts.
 */
export class StreamedCheck {
  private readonly rows: Int32Array;
  private readonly up: Int32Array;
  private readonly down: Int32Array;
  private col = 0;
  private repeated = false;
  private upUsed = 0;
  private downUsed = 0;
  readonly head: number[] = [];

  constructor(readonly n: number) {
    this.rows = new Int32Array((n >>> 5) + 1);
    this.up = new Int32Array(((2 * n) >>> 5) + 1);
    this.down = new Int32Array(((2 * n) >>> 5) + 1);
  }

  /** The next column's row (1-based). @throws TupleSyntaxError for a row outside 1..N or a column past N. */
  add(row: number, where: string): void {
    const { n } = this;
    const col = ++this.col;
    if (col > n) throw new TupleSyntaxError(`${where}: more than the ${n} rows it announces`);
    if (!(row >= 1 && row <= n)) throw new TupleSyntaxError(`${where}: row ${row} in column ${col} is out of range 1..${n}`);
    if (col <= 10) this.head.push(row);
    if (mark(this.rows, row)) this.repeated = true;
    if (!mark(this.up, row - col + n)) this.upUsed++;
    if (!mark(this.down, row + col)) this.downUsed++;
  }

  /** The report, once N rows came. @throws TupleSyntaxError when fewer came. */
  report(where: string): StreamedReport {
    const { n } = this;
    if (this.col !== n) throw new TupleSyntaxError(`${where}: has ${this.col} rows, its header says ${n}`);
    const fitness = n - this.upUsed + (n - this.downUsed);
    const permutation = !this.repeated;
    return { n, permutation, fitness, solution: permutation && fitness === 0, head: this.head };
  }
}

/** Sets bit k; returns whether it was set before. */
function mark(bits: Int32Array, k: number): boolean {
  const word = k >>> 5;
  const bit = 1 << (k & 31);
  const was = (bits[word] & bit) !== 0;
  bits[word] |= bit;
  return was;
}

/** Reads and checks a `.bin` solution file as it reads it. @throws TupleSyntaxError for a file that is not one. */
export function checkBinaryFile(file: string, name = file): StreamedReport {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO without a writer must not hang the check.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TupleSyntaxError(`${name}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? (error as Error).message})`}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new TupleSyntaxError(`${name}: is not a regular file; expected a .bin solution`);
    const size = stats.size;
    const header = Buffer.alloc(BINARY_HEADER_BYTES);
    const got = readSync(fd, header, 0, BINARY_HEADER_BYTES, 0);
    if (got < BINARY_HEADER_BYTES || header.toString('latin1', 0, 8) !== BINARY_MAGIC)
      throw new TupleSyntaxError(`${name}: not a .bin solution (expected it to start with ${BINARY_MAGIC}, docs/large-n.md)`);
    const n = header.readUInt32LE(8);
    if (n < 1 || size !== BINARY_HEADER_BYTES + 4 * n)
      throw new TupleSyntaxError(`${name}: its header says N = ${n}, so ${BINARY_HEADER_BYTES + 4 * n} bytes, but it has ${size}`);
    const check = new StreamedCheck(n);
    // Words read in place where the machine is little-endian (a tenth of the time of readUInt32LE).
    const words = new Uint32Array(CHUNK_ROWS);
    const buffer = Buffer.from(words.buffer);
    for (let at = 0; at < n; at += CHUNK_ROWS) {
      const count = Math.min(CHUNK_ROWS, n - at);
      if (readSync(fd, buffer, 0, 4 * count, BINARY_HEADER_BYTES + 4 * at) !== 4 * count) throw new TupleSyntaxError(`${name}: ends early`);
      for (let i = 0; i < count; i++) check.add(LITTLE_ENDIAN ? words[i] : buffer.readUInt32LE(4 * i), name);
    }
    return check.report(name);
  } finally {
    closeSync(fd);
  }
}
