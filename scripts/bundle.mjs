// Bundles the CLI and the island worker with esbuild into dist/bundle/, each one CommonJS
// script started from a V8 code cache made here (scripts/cached-script.cjs): a command
// neither resolves hundreds of modules nor compiles what it ran last time. A command's work,
// the live view and the report stay behind import() (they run only for the command that
// needs them); Vega and the NATS client are scripts of their own, loaded on use.
// Run by `npm run build`, after tsc. Also stores config/default.yaml parsed (see below).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Packages whose "node" export is not the build we want: CommonJS, which esbuild cannot
 * tree-shake (rxjs: 250 kB for the three names we use), or a native-module probe.
 */
const ES_BUILDS = {
  rxjs: 'dist/esm/index.js',
  yaml: 'browser/index.js',
  // Its pure-JS build: the node one first probes for the optional native decoder (msgpackr-extract,
  // which speeds up long strings; our messages are typed arrays), costing every worker a few ms.
  msgpackr: 'index.js',
};
const esBuilds = {
  name: 'es-builds',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(ES_BUILDS).join('|')})$`);
    b.onResolve({ filter }, ({ path: name }) => ({
      path: fileURLToPath(new URL(`../node_modules/${name}/${ES_BUILDS[name]}`, import.meta.url)),
    }));
  },
};

/**
 * string-width (yargs' cliui and its own copy, wrap-ansi) builds an `Intl.Segmenter` and Unicode
 * property regexes (\p{RGI_Emoji}) when it loads: ~15 ms on every command, though only help text
 * is ever measured. Its module body runs on the first call instead. The build fails if a version
 * no longer has the one shape this relies on (imports, then one default-exported function).
 */
const DEFERRED_EXPORT = 'export default function stringWidth(';
const deferStringWidth = {
  name: 'defer-string-width',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!/^export /m.test(source)) return undefined; // the CommonJS 4.x: nothing at load
      const lines = source.split('\n');
      const imports = lines.filter((line) => line.startsWith('import '));
      const exports = lines.filter((line) => line.startsWith('export '));
      if (exports.length !== 1 || !exports[0].startsWith(DEFERRED_EXPORT) || !imports.every((line) => line.endsWith(';'))) {
        throw new Error(`${path}: expected single-line imports and one "${DEFERRED_EXPORT}" (see deferStringWidth in scripts/bundle.mjs)`);
      }
      const body = lines
        .filter((line) => !line.startsWith('import '))
        .join('\n')
        .replace(DEFERRED_EXPORT, 'function stringWidth(');
      const contents = `${imports.join('\n')}
let loaded;
const load = () => {
${body}
return stringWidth;
};
export default function deferredStringWidth(...args) { return (loaded ??= load())(...args); }`;
      return { contents, loader: 'js' };
    });
  },
};

/**
 * zod re-exports all of its ~50 message locales (360 kB, a third of what `solve` parses at start)
 * as `z.locales`; we only use its built-in English, which zod imports on its own.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

/**
 * A plugin that replaces `from` by `to` in the one file `filter` matches: for a package whose
 * shape we rely on, so the build fails (naming `name`) when a new version no longer has it.
 */
function replaceInPackage(name, filter, from, to) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, ({ path: file }) => {
        const source = readFileSync(file, 'utf8');
        if (!source.includes(from)) throw new Error(`${file}: expected ${from} (see ${name} in scripts/bundle.mjs)`);
        return { contents: source.replace(from, to), loader: 'js' };
      });
    },
  };
}

/**
 * piscina is bundled (its module graph, resolved file by file, cost ~8 ms per start), all but
 * its worker script: piscina starts workers from `worker.js` beside its own files, which
 * the bundle finds in the installed package.
 */
const piscinaWorkerInPackage = replaceInPackage(
  'piscina-worker-in-package',
  /[\\/]piscina[\\/]dist[\\/]index\.js$/,
  "(0, node_path_1.resolve)(__dirname, 'worker.js')",
  "(0, node_path_1.resolve)(require.resolve('piscina'), '..', 'worker.js')",
);

/**
 * vega-canvas probes for the optional node-canvas package with a top-level await, which a
 * CommonJS script cannot hold. We render SVG and never install node-canvas: the probe
 * always found nothing, so it is replaced by its outcome.
 */
const vegaCanvasWithoutProbe = replaceInPackage(
  'vega-canvas-without-probe',
  /[\\/]vega-canvas[\\/]build[\\/]vega-canvas\.node\.js$/,
  "NodeCanvas = await import('canvas');",
  'NodeCanvas = null;',
);

/**
 * Vega (~1 MB) and the NATS client (~0.2 MB) are their own scripts, loaded by `require` when
 * `report` draws or a run goes across machines: the CLI's script, read and deserialised on
 * every start, stays under half the size. Only third-party packages go there (no state of
 * ours is duplicated); each group is one script, so packages that share code share it there.
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
 * The command whose start the code caches hold: the most common one, on a board that takes
 * some generations, on two islands whatever the machine (every worker saves the same cache).
 */
const CACHE_WORKLOAD = ['solve', '-n', '32', '--seed', '1', '--islands', '2', '--quiet'];

/**
 * Each bundle is one CommonJS script, not ES modules: a script can start from a V8 code
 * cache (scripts/cached-script.cjs) and ES modules cannot on Node 20. A command's work, the
 * live view and the report (Vega) stay behind `import()`, which esbuild turns into a lazy
 * initialiser: their code is in the file but runs only for the command that needs it.
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
  plugins: [esBuilds, deferStringWidth, zodEnglishOnly, piscinaWorkerInPackage, vegaCanvasWithoutProbe],
  logLevel: 'warning',
  // piscina finds its worker script with require.resolve, on purpose (see piscinaWorkerInPackage).
  logOverride: { 'require-resolve-not-external': 'silent' },
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
const [cliBuild, islandBuild] = await Promise.all([
  build({ ...common, plugins: [...common.plugins, fromVendorScripts], entryPoints: ['src/cli/main.ts'], outfile: `${OUT}/cli.cjs` }),
  build({ ...common, entryPoints: ['workers/island-worker.ts'], outfile: `${OUT}/island.cjs` }),
  ...Object.entries(VENDORS).map(([file, names]) => build({ ...common, stdin: vendorEntry(names), outfile: `${OUT}/${file}` })),
]);
// What each source module imports, statically or by import(): test/bundle.test.ts reads it.
writeFileSync('dist/bundle-meta.json', JSON.stringify({ cli: cliBuild.metafile, island: islandBuild.metafile }));

/**
 * The files the bin and piscina load: a loader per bundle that runs it with a code cache
 * named after the script's hash. The CLI has two: one made by a `solve` (yargs, zod, the
 * config, the archipelago) for the commands that check run configs or records, and a
 * lighter one made by a `verify` for the rest, which would only pay to deserialise the first.
 */
copyFileSync('scripts/cached-script.cjs', `${OUT}/cached-script.cjs`);
const hashed = (script) =>
  `${script.replace(/\.cjs$/, '')}.${createHash('sha256')
    .update(readFileSync(`${OUT}/${script}`))
    .digest('hex')
    .slice(0, 12)}`;
const RUN_COMMANDS = ['solve', 'experiment', 'config', 'host', 'report'];
const islandCache = `${hashed('island.cjs')}.cache`;
const cli = hashed('cli.cjs');
const cliRunCache = `${cli}.run.cache`;
const cliCache = `${cli}.cache`;
function writeLoader(loader, head, script, cache) {
  writeFileSync(
    `${OUT}/${loader}`,
    `${head}'use strict';
// Generated by scripts/bundle.mjs: ${script} with its V8 code cache.
const path = require('node:path');
${cache}
module.exports = require('./cached-script.cjs').load(path.join(__dirname, '${script}'), path.join(__dirname, cache));
`,
    { mode: 0o755 },
  );
}
writeLoader('island-worker.cjs', '', 'island.cjs', `const cache = '${islandCache}';`);
writeLoader(
  'nqueens-islands.cjs',
  '#!/usr/bin/env node\n',
  'cli.cjs',
  `const cache = ${JSON.stringify(RUN_COMMANDS)}.includes(process.argv[2]) ? '${cliRunCache}' : '${cliCache}';`,
);

// The caches, from real commands (scripts/make-code-cache.cjs, scripts/island-code-cache.cjs):
// a `solve` for yargs, the config and the archipelago on the main thread and an island's
// first generations in the workers; a `verify` for the light CLI cache. Made with the V8 flags
// of a plain `node` (none from NODE_OPTIONS), as users run it.
{
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  for (const [workload, cache] of [
    [CACHE_WORKLOAD, cliRunCache],
    [['verify', '8', '6', '4', '1', '3', '5', '7', '2'], cliCache],
  ]) {
    const env = { ...inherited, NQI_CODE_CACHE_CLI: `${OUT}/${cache}`, NQI_CODE_CACHE_ISLAND: `${OUT}/${islandCache}` };
    const run = spawnSync(
      process.execPath,
      ['--require', './scripts/island-code-cache.cjs', 'scripts/make-code-cache.cjs', OUT, ...workload],
      { encoding: 'utf8', env },
    );
    if (run.status === null || run.status > 1)
      throw new Error(`making the code caches: \`${workload.join(' ')}\` exited ${run.status}: ${run.stderr}`);
  }
  const missing = [cliRunCache, cliCache, islandCache].filter((file) => !existsSync(`${OUT}/${file}`));
  if (missing.length > 0) throw new Error(`making the code caches: no ${missing.join(', ')}`);
}
