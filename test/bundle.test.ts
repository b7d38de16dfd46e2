/**
 * What each command loads at start, read from the built bundle (dist/bundle, what the
 * `nqueens-islands` bin runs): the files a command's static import graph reaches. Start-up
 * time is measured in `npm run bench`; this guards its structure, deterministically: a
 * package that only some commands need must not creep into every command's start.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const BUNDLE = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
const CHUNKS = path.join(BUNDLE, 'chunks');

/** A text each package's code carries in any build (minifiers keep string literals). */
const MARKS = { zod: '"$ZodType"', yaml: 'YAMLParseError', vega: 'vega-lite', nats: '$JS.API' };

function source(file: string): string {
  return readFileSync(file, 'utf8');
}

/** The chunk whose name starts with `prefix` (esbuild adds a content hash). */
function chunk(prefix: string): string {
  const name = readdirSync(CHUNKS).find((f) => f.startsWith(`${prefix}-`) && f.endsWith('.mjs'));
  assert.ok(name, `no ${prefix}-*.mjs in dist/bundle/chunks: run npm run build`);
  return path.join(CHUNKS, name);
}

/** Every file loaded by `roots` and their static imports (dynamic `import()` is a later, optional load). */
function staticClosure(roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of source(file).matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["'](\.[^"']+)["']/g)) {
      visit(path.resolve(path.dirname(file), spec));
    }
  };
  roots.forEach(visit);
  return seen;
}

function packagesIn(files: Set<string>): string[] {
  return Object.entries(MARKS).filter(([, mark]) => [...files].some((f) => source(f).includes(mark))).map(([name]) => name);
}

const entry = path.join(BUNDLE, 'nqueens-islands.mjs');

describe('what a command loads at start (dist/bundle)', () => {
  it('the marks are real: each package is somewhere in the bundle', () => {
    const all = new Set(readdirSync(CHUNKS).map((f) => path.join(CHUNKS, f)));
    assert.deepEqual(packagesIn(all).sort(), Object.keys(MARKS).sort());
  });

  it('verify, --help and every command before its handler: yargs and the command table, none of zod, yaml, vega, nats', () => {
    const files = staticClosure([entry, chunk('cli')]);
    assert.ok(files.size > 2, 'the closure follows imports');
    assert.deepEqual(packagesIn(files), []);
  });

  it('solve with the default config: zod for the config, no yaml (the build stores config/default.yaml parsed), no vega, no nats', () => {
    const files = staticClosure([entry, chunk('cli'), chunk('early-host'), chunk('solve-run')]);
    assert.deepEqual(packagesIn(files), ['zod']);
  });
});
