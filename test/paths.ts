/**
 * Where things are, whether a test file runs from source (test/x.test.ts under tsx) or as the
 * build's tsc compiled it (dist/test/x.test.js, as `npm test` runs most files): the
 * repository's root, and the fixtures, which are read from test/fixtures either way.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when the test files run as the build compiled them (dist/test/), so the code they import in-process is dist/src's. */
export const COMPILED = import.meta.url.endsWith('.js');
const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's root (package.json, src/, dist/). */
export const ROOT = path.resolve(here, COMPILED ? '../..' : '..');
/** test/fixtures in the source tree (data files, and `.ts` modules handed to code that loads them). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/**
 * The URL of a module of test/fixtures as this file runs: under tsx the `.ts` source (which
 * island workers import with tsx's loader: helpers.ts `withSourceWorker`), compiled the `.js`
 * the build emitted beside dist/test (which the compiled workers import).
 */
export function fixtureModule(name: string): string {
  return new URL(`./fixtures/${name}${COMPILED ? '.js' : '.ts'}`, import.meta.url).href;
}

/**
 * How a child node runs a module of the repository (`bench/defaults-tables.ts`) as this file
 * runs: compiled, the `.js` the build emitted under dist/ with plain node (a start without tsx
 * costs a fraction of the CPU); under tsx, the source with tsx.
 */
export function nodeArgsFor(module: string): string[] {
  return COMPILED ? [path.join(ROOT, 'dist', module.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(ROOT, module)];
}
