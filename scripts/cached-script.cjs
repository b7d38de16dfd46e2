'use strict';
/**
 * Runs a bundled CommonJS script with the V8 code cache the build made for it (copied to
 * dist/bundle/ by scripts/bundle.mjs). On Node 20, compiling the CLI's JavaScript and the
 * functions a command calls on its way to work is most of what a start costs, and Node 20
 * has no cache of its own for that (Node 22's `module.enableCompileCache()`).
 *
 * V8 checks a cache before it uses one: made by another V8 version, with other V8 flags or
 * for a source of another length, it is refused and the script compiles as it would
 * without it (slower, same behaviour). The build names each cache after a hash of its
 * script's text, so a rebuilt script never meets an old cache.
 *
 * V8 does not check a cache's contents, though: flipped bytes inside one crash the process
 * (a fatal error, a segfault). So a cache file starts with the SHA-256 of the rest, and a
 * cache whose bytes do not match it is never handed to V8: the script compiles without.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { Script, constants } = require('node:vm');
const Module = require('node:module');

/** Compiles `file` as Node would compile a CommonJS module, with `cachedData` if given. */
function compile(file, cachedData) {
  return new Script(Module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    // A run config's extension modules (`import(url)`) load through Node's own module loader.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

/** Runs a compiled script as the module `file`; returns its exports. */
function evaluate(script, file) {
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

const DIGEST_BYTES = 32;

/** A cache as its file holds it: the SHA-256 of the V8 data, then the data. */
function seal(data) {
  return Buffer.concat([createHash('sha256').update(data).digest(), data]);
}

/** The V8 data of a cache file, or undefined when there is none or its bytes are not the ones sealed. */
function readCache(file) {
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined; // no cache (a build that made none, a file removed): compile without
  }
  const data = bytes.subarray(DIGEST_BYTES);
  const sealed = bytes.length > DIGEST_BYTES && createHash('sha256').update(data).digest().equals(bytes.subarray(0, DIGEST_BYTES));
  return sealed ? data : undefined;
}

/** Loads the bundled script `file` with its code cache `cacheFile`; returns its exports. */
function load(file, cacheFile) {
  return evaluate(compile(file, readCache(cacheFile)), file);
}

module.exports = { compile, evaluate, load, readCache, seal };
