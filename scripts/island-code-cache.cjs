'use strict';
/**
 * Build step, preloaded (`--require`) by scripts/make-code-cache.cjs and so by every worker
 * thread it starts: in an island worker, loading island.cjs compiles it without a cache and
 * saves one (to NQI_CODE_CACHE_ISLAND) after the island's task: its module and its first
 * generations, which later workers need not compile again.
 */
const { randomBytes } = require('node:crypto');
const { renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { isMainThread } = require('node:worker_threads');
const { seal } = require('./cached-script.cjs');

/** Sealed with its checksum (cached-script.cjs), written whole to a new file, then renamed: two islands saving at once never mix their files. */
function save(file, data) {
  const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temp, seal(data), { flag: 'wx' });
  renameSync(temp, file);
}

if (!isMainThread) {
  const out = process.env.NQI_CODE_CACHE_ISLAND;
  const loader = require(path.resolve(path.dirname(out), 'cached-script.cjs'));
  loader.load = (file) => {
    const script = loader.compile(file);
    const island = loader.evaluate(script, file).default;
    return {
      __esModule: true, // as esbuild's exports say: piscina takes `default` as the handler
      default: (...args) => {
        const report = island(...args);
        save(out, script.createCachedData());
        return report;
      },
    };
  };
}

module.exports = { save };
