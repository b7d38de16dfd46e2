// Bundles the CLI and the island worker with esbuild into dist/bundle/, each one CommonJS
// script; the CLI's starts from a V8 code cache made here (scripts/cached-script.cjs): a
// command neither resolves hundreds of modules nor compiles what it ran last time. A command's
// work, the live view and the report stay behind import() (they run only for the command that
// needs them); Vega and the NATS client are scripts of their own, loaded on use. No third-party file is rewritten: what each piece saves, and why it is kept,
// is in docs/performance.md ("Start-up").
// Run by `npm run build`, after tsc. Also stores config/default.yaml parsed (see below).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Packages whose "node" export is not the build we want: CommonJS, which esbuild cannot
 * tree-shake (rxjs: 250 kB for the three names we use), or a probe for an optional package.
 * Each is another build the package publishes, taken as it is.
 */
const ES_BUILDS = {
  rxjs: 'dist/esm/index.js',
  yaml: 'browser/index.js',
  // Its pure-JS build: the node one first probes for the optional native decoder (msgpackr-extract,
  // which speeds up long strings; our messages are typed arrays), costing every worker a few ms.
  msgpackr: 'index.js',
  // Its node build probes for the optional node-canvas with a top-level await, which a CommonJS
  // script cannot hold. We render SVG and never install node-canvas: the probe always found
  // nothing, and the browser build is the same code without it.
  'vega-canvas': 'build/vega-canvas.browser.js',
};
const esBuilds = {
  name: 'es-builds',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(ES_BUILDS).join('|').replace(/-/g, '\\-')})$`);
    b.onResolve({ filter }, ({ path: name }) => ({
      path: fileURLToPath(new URL(`../node_modules/${name}/${ES_BUILDS[name]}`, import.meta.url)),
    }));
  },
};

/**
 * string-width (yargs' cliui and wrap-ansi) builds an `Intl.Segmenter` and Unicode property
 * regexes (\p{RGI_Emoji}) when it loads, on every command, though only help text is ever
 * measured. Each import of it gets a module of ours that `require`s the package's own file,
 * unchanged, on the first call, so esbuild runs that file's body only then: a lazy import, not
 * a patch (test/bundle.test.ts checks that every file read from node_modules is as installed).
 */
const AS_INSTALLED = Symbol('string-width as installed');
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async ({ path: name, importer, resolveDir, kind, pluginData }) => {
      if (pluginData === AS_INSTALLED) return undefined;
      const real = await b.resolve(name, { importer, resolveDir, kind, pluginData: AS_INSTALLED });
      return real.errors.length > 0 ? { errors: real.errors } : { path: real.path, namespace: 'lazy-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, ({ path: file }) => ({
      contents: `let width;
const load = () => { const m = require(${JSON.stringify(file)}); return typeof m === 'function' ? m : m.default; };
module.exports = (...args) => (width ??= load())(...args);`,
      resolveDir: path.dirname(file),
      loader: 'js',
    }));
  },
};

/**
 * Vega (~1 MB) and the NATS client (~0.2 MB) are their own scripts, loaded by `require` when
 * `report` draws or a run goes across machines: the CLI's script, read and deserialised on
 * every start, stays under half the size (~17 ms of `solve -n 8`, docs/performance.md). Only
 * third-party packages go there (no state of ours is duplicated); each group is one script, so
 * packages that share code share it there. The CLI imports each through a module of ours that
 * requires the group's script (the packages' own files are not touched).
 */
const VENDORS = {
  'vendor-vega.cjs': ['vega', 'vega-lite'],
  'vendor-nats.cjs': ['@nats-io/transport-node', '@nats-io/jetstream'],
};
const vendored = new Map(Object.entries(VENDORS).flatMap(([file, names]) => names.map((name, i) => [name, { file, key: `m${i}` }])));
const fromVendorScripts = {
  name: 'from-vendor-scripts',
  setup(b) {
    const filter = new RegExp(`^(${[...vendored.keys()].map((n) => n.replace(/[/@.-]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, ({ path: name }) => ({ path: name, namespace: 'vendor' }));
    b.onResolve({ filter: /^\.\/vendor-/ }, ({ path: file }) => ({ path: file, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, ({ path: name }) => {
      const { file, key } = vendored.get(name);
      return { contents: `module.exports = require(${JSON.stringify(`./${file}`)}).${key};`, loader: 'js' };
    });
  },
};
/** A vendor script's entry: each package's namespace under m0, m1, ... (as fromVendorScripts reads them). */
const vendorEntry = (names) => ({
  contents: names.map((name, i) => `export * as m${i} from ${JSON.stringify(name)};`).join('\n'),
  resolveDir: '.',
  loader: 'js',
});

/**
 * The command whose start the CLI's run cache holds: the most common one, on a board that
 * takes some generations.
 */
const CACHE_WORKLOAD = ['solve', '-n', '32', '--seed', '1', '--islands', '2', '--quiet'];

/**
 * Each bundle is one CommonJS script, not ES modules: a script can start from a V8 code
 * cache (scripts/cached-script.cjs) and ES modules cannot on Node 20. A command's work, the
 * live view and the report (Vega) stay behind `import()`, which esbuild turns into a lazy
 * initialiser: their code is in the file but runs only for the command that needs it.
 * piscina is bundled too: loaded from node_modules, resolving and compiling its dozen files
 * cost every `solve` ~4 ms of wall and ~8 ms of CPU (issue 50). It starts its workers from
 * `worker.js` beside the script that holds it, so its own worker script is built there as
 * dist/bundle/worker.js, as installed, with a package.json that makes that `.js` CommonJS.
 */
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['msgpackr-extract', 'playwright-core', '@napi-rs/nice'],
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  legalComments: 'none',
  plugins: [esBuilds, lazyStringWidth],
  logLevel: 'warning',
  metafile: true,
  // In a CommonJS script, import.meta.url is the script's own URL.
  define: { 'import.meta.url': '__nqiModuleUrl' },
  banner: { js: "var __nqiModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

// config/default.yaml parsed by the same code that would parse it at run time (tsc's output,
// built just before), for src/config/config-file.ts: a plain `solve` need not load the YAML parser.
const { readConfigFile } = await import('../dist/src/config/load.js');
const { BUILT_DEFAULT_FILE, DEFAULT_CONFIG_FILE } = await import('../dist/src/config/config-file.js');
mkdirSync(path.dirname(BUILT_DEFAULT_FILE), { recursive: true });
writeFileSync(
  BUILT_DEFAULT_FILE,
  JSON.stringify({ text: readFileSync(DEFAULT_CONFIG_FILE, 'utf8'), value: readConfigFile(DEFAULT_CONFIG_FILE) }),
);

// A clean start: the code caches' names carry hashes, and old ones would pile up (and be packed).
rmSync('dist/bundle', { recursive: true, force: true });
const OUT = 'dist/bundle';
mkdirSync(OUT, { recursive: true });
// Names no package: src/package-info.ts walks past it to the package's own.
writeFileSync(`${OUT}/package.json`, '{ "type": "commonjs" }\n');
// The island worker is piscina's task file as it is: a cache of its code saved ~2 ms (docs/performance.md).
// The report's worker thread makes its outputs (so the CLI's thread hears a signal at once); it loads Vega as the CLI would.
const withVendors = { ...common, plugins: [...common.plugins, fromVendorScripts] };
const [cliBuild, islandBuild, reportBuild, piscinaWorkerBuild, ...vendorBuilds] = await Promise.all([
  build({ ...withVendors, entryPoints: ['src/cli/main.ts'], outfile: `${OUT}/cli.cjs` }),
  build({ ...common, entryPoints: ['workers/island-worker.ts'], outfile: `${OUT}/island-worker.cjs` }),
  build({ ...withVendors, entryPoints: ['workers/report-worker.ts'], outfile: `${OUT}/report-worker.cjs` }),
  build({ ...common, entryPoints: ['node_modules/piscina/dist/worker.js'], outfile: `${OUT}/worker.js` }),
  ...Object.entries(VENDORS).map(([file, names]) => build({ ...common, stdin: vendorEntry(names), outfile: `${OUT}/${file}` })),
]);
// What each source module imports, statically or by import(), and the bytes esbuild read of each
// file: test/bundle.test.ts reads it.
writeFileSync(
  'dist/bundle-meta.json',
  JSON.stringify({
    cli: cliBuild.metafile,
    island: islandBuild.metafile,
    report: reportBuild.metafile,
    piscinaWorker: piscinaWorkerBuild.metafile,
    vendors: vendorBuilds.map((v) => v.metafile),
  }),
);

/**
 * The bin: a loader that runs the CLI's script with a code cache named after the script's
 * hash (scripts/cached-script.cjs). Two caches of the one script: one made by a `solve`
 * (yargs, zod, the config, the archipelago) for the commands that check run configs or
 * records, and a lighter one made by a `verify` for the rest, which would only pay to
 * deserialise the first.
 */
copyFileSync('scripts/cached-script.cjs', `${OUT}/cached-script.cjs`);
const cli = `cli.${createHash('sha256')
  .update(readFileSync(`${OUT}/cli.cjs`))
  .digest('hex')
  .slice(0, 12)}`;
const RUN_COMMANDS = ['solve', 'experiment', 'config', 'host', 'report'];
const cliRunCache = `${cli}.run.cache`;
const cliCache = `${cli}.cache`;
writeFileSync(
  `${OUT}/nqueens-islands.cjs`,
  `#!/usr/bin/env node
'use strict';
// Generated by scripts/bundle.mjs: cli.cjs with its V8 code cache.
const path = require('node:path');
const cache = ${JSON.stringify(RUN_COMMANDS)}.includes(process.argv[2]) ? '${cliRunCache}' : '${cliCache}';
module.exports = require('./cached-script.cjs').load(path.join(__dirname, 'cli.cjs'), path.join(__dirname, cache));
`,
  { mode: 0o755 },
);

// The caches, from real commands (scripts/make-code-cache.cjs): a `solve` for yargs, the config
// and the archipelago; a `verify` for the light cache. Made with the V8 flags of a plain `node`
// (none from NODE_OPTIONS), as users run it.
{
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  for (const [workload, cache] of [
    [CACHE_WORKLOAD, cliRunCache],
    [['verify', '8', '6', '4', '1', '3', '5', '7', '2'], cliCache],
  ]) {
    const env = { ...inherited, NQI_CODE_CACHE_CLI: `${OUT}/${cache}` };
    const run = spawnSync(process.execPath, ['scripts/make-code-cache.cjs', OUT, ...workload], { encoding: 'utf8', env });
    if (run.status === null || run.status > 1)
      throw new Error(`making the code caches: \`${workload.join(' ')}\` exited ${run.status}: ${run.stderr}`);
  }
  const missing = [cliRunCache, cliCache].filter((file) => !existsSync(`${OUT}/${file}`));
  if (missing.length > 0) throw new Error(`making the code caches: no ${missing.join(', ')}`);
}
