/**
 * The command line of the scripts that make a block of a doc from study folders
 * (bench/defaults-tables.ts, bench/defaults-rule.ts): `DIR... [--write PAGE]` prints the block,
 * or replaces what lies between the page's `<!-- NAME:begin -->` and `<!-- NAME:end -->` markers.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../src/io/write-file.ts';

export function writeDocBlock(argv: readonly string[], name: string, blockOf: (dirs: readonly string[]) => string): void {
  const [begin, end] = [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`];
  const at = argv.indexOf('--write');
  const target = at >= 0 ? argv[at + 1] : undefined;
  const block = blockOf(at < 0 ? argv : argv.filter((_, i) => i !== at && i !== at + 1));
  if (target === undefined) {
    process.stdout.write(`${block}\n`);
    return;
  }
  const page = readFileSync(target, 'utf8');
  const [from, to] = [page.indexOf(begin), page.indexOf(end)];
  if (from < 0 || to < from) throw new Error(`${target}: no ${begin} ... ${end} markers`);
  writeFileAtomic(target, `${page.slice(0, from + begin.length)}\n${block}\n${page.slice(to)}`);
}
