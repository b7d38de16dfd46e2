'use strict';
/**
 * Build step (scripts/bundle.mjs) that makes the bundles' V8 code caches by running a real
 * command: `node --require ./scripts/island-code-cache.cjs scripts/make-code-cache.cjs DIR ARGS...`
 * runs the CLI script DIR/cli.cjs as the command ARGS and saves its cache (to
 * NQI_CODE_CACHE_CLI) as the process exits; each island worker saves the island's (see
 * island-code-cache.cjs). A cache holds everything compiled by then: the start of that command,
 * which later starts need not compile again.
 */
const path = require('node:path');
const { save } = require('./island-code-cache.cjs');

const [dir, ...args] = process.argv.slice(2);
const file = path.resolve(dir, 'cli.cjs');
const { compile, evaluate } = require(path.resolve(dir, 'cached-script.cjs'));
const script = compile(file);
process.argv = [process.argv[0], file, ...args];
process.on('exit', () => save(process.env.NQI_CODE_CACHE_CLI, script.createCachedData()));
evaluate(script, file);
