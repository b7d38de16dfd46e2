// @unit: in-process and quick; `npm run test:unit` runs the files so tagged (scripts/test.mjs).
/**
 * Every path of the repository that the docs or the code's comments name exists: a file moved
 * or removed leaves no reader looking for it. A path counts when it starts at the repository's
 * root (`src/`, `test/`, `bench/`, `scripts/`, `workers/`, `config/`, `docs/`, `kernel/`) or at a
 * folder of src (`cli/main.ts`, as the docs often write them), and is
 * not part of a longer path (`../config/x.ts` is an import, which tsc checks). CHANGELOG.md is
 * history and names what once was, and tests name made-up files; built files (`dist/...`) are
 * not in the tree. A doc that
 * shows a file to create writes `new file: PATH`; placeholders (`x.test.ts`, `nN`, `NAME`, globs,
 * `{a,b}` lists) are not paths.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { ROOT } from './paths.ts';

const SRC = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [e.name] : []));
const TOP = [...new Set(['src', 'test', 'bench', 'scripts', 'workers', 'config', 'docs', 'kernel', ...SRC])];
/** What ends a path in prose: space, quotes, brackets, separators, an escape. */
const STOP = '\\s\'"`()[\\]|;:\\\\';
const PATH = new RegExp(`(?<![\\w./-])(?:${TOP.join('|')})/[^${STOP}]*`, 'g');
const PLACEHOLDER = /(^|[/-])(x|X|NAME|nN|N)(\.|$)|[*{<$]|\.\.\./;

/** The files whose text is read: the docs, README, and every source file's text (comments included). */
function readers(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'results' ? [] : walk(rel);
      return /\.(ts|mjs|cjs|js|md)$/.test(e.name) ? [rel] : [];
    });
  return ['README.md', ...['docs', 'src', 'workers', 'bench', 'scripts'].flatMap(walk)];
}

/** A path exists from the root or, as the docs often write them, from src/ (`cli/main.ts`); a `.js` name is its `.ts` source built. */
function exists(p: string): boolean {
  return [p, `src/${p}`].some((q) => existsSync(path.join(ROOT, q)) || existsSync(path.join(ROOT, q.replace(/\.js$/, '.ts'))));
}

/** The paths a text names that do not exist, with the line they are on. */
function missing(file: string): string[] {
  return readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) =>
      [...line.matchAll(PATH)]
        .filter((m) => !/new file: $/.test(line.slice(0, m.index)))
        .map((m) => m[0].replace(/[.,]+$/, ''))
        .filter((p) => !PLACEHOLDER.test(p) && !exists(p))
        .map((p) => `${file}:${i + 1}: ${p}`),
    );
}

it('every repository path named in the docs and comments exists', () => {
  assert.deepEqual(readers().flatMap(missing), []);
});
