'use strict';
/**
 * Build step (scripts/bundle.mjs) that makes the CLI's V8 code cache by running a real
 * command: `node scripts/make-code-cache.cjs DIR ARGS...` runs the CLI script DIR/cli.cjs as
 * the command ARGS and saves its cache (to NQI_CODE_CACHE_CLI) as the process exits. A cache
 * holds everything compiled by then: the start of that command, which later starts need not
 * compile again.
 */
const { randomBytes } = require('node:crypto');
const { renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const [dir, ...args] = process.argv.slice(2);
const file = path.resolve(dir, 'cli.cjs');
const { compile, evaluate, seal } = require(path.resolve(dir, 'cached-script.cjs'));

/** Sealed with its checksum (cached-script.cjs), written whole to a new file, then renamed. */
function save(out, data) {
  const temp = `${out}.${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temp, seal(data), { flag: 'wx' });
  renameSync(temp, out);
}

const script = compile(file);
process.argv = [process.argv[0], file, ...args];
process.on('exit', () => save(process.env.NQI_CODE_CACHE_CLI, script.createCachedData()));
evaluate(script, file);
