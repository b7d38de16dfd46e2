// Bundles the CLI and the island worker with esbuild into dist/bundle/, so a command loads a
// few files instead of resolving hundreds of modules. The CLI is split: a command's work, the
// live view and the report (Vega) are chunks loaded only by the command that needs them.
// The worker is one file.
// Run by `npm run build`, after tsc. Also stores config/default.yaml parsed (see below).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    b.onResolve({ filter }, ({ path: name }) => ({ path: fileURLToPath(new URL(`../node_modules/${name}/${ES_BUILDS[name]}`, import.meta.url)) }));
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
      const body = lines.filter((line) => !line.startsWith('import ')).join('\n').replace(DEFERRED_EXPORT, 'function stringWidth(');
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
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: 'js' }));
  },
};

/**
 * piscina is bundled (its module graph, resolved file by file, cost ~8 ms per start), all but
 * its worker script: piscina starts workers from `worker.js` beside its own files, which
 * the bundle finds in the installed package.
 */
const PISCINA_WORKER = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
const piscinaWorkerInPackage = {
  name: 'piscina-worker-in-package',
  setup(b) {
    b.onLoad({ filter: /[\\/]piscina[\\/]dist[\\/]index\.js$/ }, ({ path: file }) => {
      const source = readFileSync(file, 'utf8');
      if (!source.includes(PISCINA_WORKER)) throw new Error(`${file}: expected ${PISCINA_WORKER} (see piscinaWorkerInPackage in scripts/bundle.mjs)`);
      return { contents: source.replace(PISCINA_WORKER, "(0, node_path_1.resolve)(require.resolve('piscina'), '..', 'worker.js')"), loader: 'js' };
    });
  },
};

const common = {
  outdir: 'dist/bundle',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  external: ['msgpackr-extract', 'playwright-core', '@napi-rs/nice'],
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  legalComments: 'none',
  plugins: [esBuilds, deferStringWidth, zodEnglishOnly, piscinaWorkerInPackage],
  logLevel: 'warning',
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __nqiRequire } from 'node:module'; const require = __nqiRequire(import.meta.url);" },
};

// config/default.yaml parsed by the same code that would parse it at run time (tsc's output,
// built just before), for src/config/config-file.ts: a plain `solve` need not load the YAML parser.
const { readConfigFile } = await import('../dist/src/config/load.js');
const { BUILT_DEFAULT_FILE, DEFAULT_CONFIG_FILE } = await import('../dist/src/config/config-file.js');
mkdirSync(path.dirname(BUILT_DEFAULT_FILE), { recursive: true });
writeFileSync(BUILT_DEFAULT_FILE, JSON.stringify({ text: readFileSync(DEFAULT_CONFIG_FILE, 'utf8'), value: readConfigFile(DEFAULT_CONFIG_FILE) }));

// Chunk names carry content hashes: without a clean start, old chunks would pile up (and be packed).
rmSync('dist/bundle', { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: { 'nqueens-islands': 'src/cli/main.ts' }, splitting: true, chunkNames: 'chunks/[name]-[hash]' }),
  build({ ...common, entryPoints: { 'island-worker': 'workers/island-worker.ts' } }),
]);
