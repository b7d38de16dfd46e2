/**
 * A block of a doc that a script writes, between the page's `<!-- NAME:begin -->` and
 * `<!-- NAME:end -->` markers. The scripts that make one from study folders
 * (bench/defaults-tables.ts, bench/defaults-rule.ts) take `DIR... [--write PAGE]`: they print
 * the block, or replace what lies between the markers; `npm run bench -- --write PAGE` merges
 * its figures into one (bench/bench-doc.ts).
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../src/io/write-file.ts';

const markers = (name: string) => [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`] as const;

/** What lies between the page's markers (without the newlines next to them); throws if it has none. */
export function readDocBlock(page: string, name: string, file: string): string {
  const [begin, end] = markers(name);
  const [from, to] = [page.indexOf(begin), page.indexOf(end)];
  if (from < 0 || to < from) throw new Error(`${file}: no ${begin} ... ${end} markers`);
  return page
    .slice(from + begin.length, to)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** Replaces the block between `file`'s markers with `block`, the careful way. */
export function replaceDocBlock(file: string, name: string, block: string): void {
  const page = readFileSync(file, 'utf8');
  readDocBlock(page, name, file);
  const [begin, end] = markers(name);
  writeFileAtomic(file, `${page.slice(0, page.indexOf(begin) + begin.length)}\n${block}\n${page.slice(page.indexOf(end))}`);
}

export function writeDocBlock(argv: readonly string[], name: string, blockOf: (dirs: readonly string[]) => string): void {
  const at = argv.indexOf('--write');
  const target = at >= 0 ? argv[at + 1] : undefined;
  const block = blockOf(at < 0 ? argv : argv.filter((_, i) => i !== at && i !== at + 1));
  if (target === undefined) process.stdout.write(`${block}\n`);
  else replaceDocBlock(target, name, block);
}
