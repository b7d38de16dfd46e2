'use strict';
/**
 * Build step (scripts/bundle.mjs): `node scripts/make-code-cache.cjs BUNDLE CACHE ARGS...`
 * runs the bundled CLI script BUNDLE as the command `ARGS` and, as the process exits, writes
 * V8's code cache for it to CACHE: everything compiled by then, the start of that command
 * included, which a later start need not compile again.
 */
const { writeFileSync } = require('node:fs');
const path = require('node:path');

const [bundle, cacheFile, ...args] = process.argv.slice(2);
const file = path.resolve(bundle);
const { compile, evaluate } = require(path.join(path.dirname(file), 'cached-script.cjs'));
const script = compile(file);
process.argv = [process.argv[0], file, ...args];
process.on('exit', () => writeFileSync(cacheFile, script.createCachedData()));
evaluate(script, file);
