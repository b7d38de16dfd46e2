// Bundles the CLI and the island worker with esbuild into dist/bundle/, so a command loads a
// few files instead of resolving hundreds of modules. The CLI is split: a command's work, the
// live view and the report (Vega) are chunks loaded only by the command that needs them.
// The worker is one file. piscina stays outside: it starts its workers from its own files.
// Run by `npm run build`, after tsc.
import { rmSync } from 'node:fs';
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

const common = {
  outdir: 'dist/bundle',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  external: ['piscina', 'msgpackr-extract', 'playwright-core'],
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  plugins: [esBuilds],
  logLevel: 'warning',
  // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __nqiRequire } from 'node:module'; const require = __nqiRequire(import.meta.url);" },
};

// Chunk names carry content hashes: without a clean start, old chunks would pile up (and be packed).
rmSync('dist/bundle', { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: { 'nqueens-islands': 'src/cli/main.ts' }, splitting: true, chunkNames: 'chunks/[name]-[hash]' }),
  build({ ...common, entryPoints: { 'island-worker': 'workers/island-worker.ts' } }),
]);
