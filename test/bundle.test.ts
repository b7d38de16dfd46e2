/**
 * What each command runs at start, read from the built bundle (dist/bundle, what the
 * `nqueens-islands` bin runs) and esbuild's record of it (dist/bundle-meta.json). A module
 * behind `import()` is in the script but runs only when imported; what a command's static
 * imports reach runs at its start. Start-up time is measured in `npm run bench`; this guards
 * its structure, deterministically: a package only some commands need must not creep into
 * every command's start, the code caches the build made must be ones V8 takes, and no
 * third-party file is rewritten on its way into the bundle.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CLI } from './cli-helpers.ts';
import { ROOT } from './paths.ts';

const BUNDLE = path.join(ROOT, 'dist', 'bundle');

interface Metafile {
  inputs: Record<string, { bytes: number; imports: { path: string; kind: string; external?: boolean }[] }>;
}
const meta = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'bundle-meta.json'), 'utf8')) as {
  cli: Metafile;
  island: Metafile;
  report: Metafile;
  piscinaWorker: Metafile;
  vendors: Metafile[];
};

/** Where each package's modules live in esbuild's inputs (vendor:NAME: the shim that requires a vendor script). */
const PACKAGES: Record<string, RegExp> = {
  zod: /node_modules\/zod\//,
  yaml: /node_modules\/yaml\//,
  vega: /^vendor:vega/,
  nats: /^vendor:@nats-io\//,
};

/** The modules `roots` and their static imports reach (an `import()` is a later, optional load). */
function staticClosure(roots: readonly string[], metafile = meta.cli): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !metafile.inputs[file]) return;
    seen.add(file);
    for (const i of metafile.inputs[file].imports) if (!i.external && i.kind !== 'dynamic-import') visit(i.path);
  };
  roots.forEach((root) => {
    assert.ok(metafile.inputs[root], `${root} is not in the bundle`);
    visit(root);
  });
  return seen;
}

function packagesIn(modules: Set<string>): string[] {
  return Object.entries(PACKAGES)
    .filter(([, where]) => [...modules].some((m) => where.test(m)))
    .map(([name]) => name);
}

/** Every command's start: the entry point, yargs and the command table. */
const START = ['src/cli/main.ts', 'src/cli/cli.ts'];

describe('what a command runs at start (dist/bundle)', () => {
  it('the packages are real: each is in the CLI bundle', () => {
    assert.deepEqual(packagesIn(new Set(Object.keys(meta.cli.inputs))), Object.keys(PACKAGES));
  });

  it('verify, --help and every command before its handler: yargs and the command table, none of zod, yaml, vega, nats', () => {
    const modules = staticClosure(START);
    assert.ok(
      [...modules].some((m) => m.includes('node_modules/yargs/')),
      'the closure follows imports',
    );
    assert.deepEqual(packagesIn(modules), []);
  });

  it('solve with the default config: zod for the config, no yaml (the build stores config/default.yaml parsed), no vega, no nats', () => {
    const modules = staticClosure([...START, 'src/cli/early-host.ts', 'src/cli/commands/solve-run.ts', 'src/config/flags.ts']);
    assert.deepEqual(packagesIn(modules), ['zod']);
  });

  it('the island worker: none of them', () => {
    assert.deepEqual(packagesIn(staticClosure(['workers/island-worker.ts'], meta.island)), []);
  });

  it("report's worker thread: Vega through its vendor script (vendor-vega.cjs), none of its files bundled in", () => {
    const inputs = Object.keys(meta.report.inputs);
    assert.ok(
      inputs.some((m) => PACKAGES.vega.test(m)),
      'the worker draws with Vega',
    );
    assert.deepEqual(
      inputs.filter((m) => /node_modules\/vega/.test(m)),
      [],
    );
  });

  it('at run time too: verify never runs zod (which marks globalThis when it loads), solve does', () => {
    const probe = path.join(tmpdir(), `nqi-zod-probe-${process.pid}.cjs`);
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(`zod loaded: ${'__zod_globalConfig' in globalThis}\\n`));\n");
    const run = (args: string[]) => spawnSync(process.execPath, ['--require', probe, CLI, ...args], { encoding: 'utf8' });
    const verify = run(['verify', '8', '6', '4', '1', '3', '5', '7', '2']);
    assert.equal(verify.status, 1, verify.stderr); // a board with one attack: not a solution
    assert.match(verify.stderr, /zod loaded: false/);
    assert.match(run(['solve', '-n', '8', '--seed', '1', '--quiet']).stderr, /zod loaded: true/);
  });
});

describe('third-party files go into the bundle as installed (scripts/bundle.mjs patches nobody)', () => {
  const bundles: [string, Metafile][] = [
    ['cli', meta.cli],
    ['island', meta.island],
    ['report worker', meta.report],
    ["piscina's worker", meta.piscinaWorker],
    ...meta.vendors.map((v, i) => [`vendor ${i}`, v] as [string, Metafile]),
  ];
  for (const [bundle, metafile] of bundles) {
    it(`${bundle}: every node_modules file esbuild read has its size on disk`, () => {
      const installed = Object.entries(metafile.inputs).filter(([file]) => file.startsWith('node_modules/'));
      assert.ok(installed.length > 0, 'the bundle holds packages');
      const rewritten = installed.filter(([file, { bytes }]) => statSync(path.join(ROOT, file)).size !== bytes).map(([file]) => file);
      assert.deepEqual(rewritten, []);
    });
  }

  it('the bundle script has no onLoad for files in node_modules', () => {
    const script = readFileSync(path.join(ROOT, 'scripts', 'bundle.mjs'), 'utf8');
    const onLoads = [...script.matchAll(/onLoad\(\s*\{([^}]*)\}/g)].map((m) => m[1]);
    for (const options of onLoads) assert.match(options, /namespace: '/, `an onLoad outside a namespace of ours: {${options}}`);
  });
});

describe('code caches (dist/bundle)', () => {
  /** The script a generated loader runs and the caches it names (scripts/bundle.mjs writes them). */
  function loaderFiles(loader: string): { script: string; caches: string[] } {
    const text = readFileSync(path.join(BUNDLE, loader), 'utf8');
    const script = /load\(path\.join\(__dirname, '([^']+)'\)/.exec(text)?.[1];
    assert.ok(script, `${loader} names its script`);
    return { script: path.join(BUNDLE, script), caches: [...text.matchAll(/'([^']+\.cache)'/g)].map((m) => path.join(BUNDLE, m[1])) };
  }

  /**
   * Whether V8 refuses `cache` for `script` in a new process run with `flags`. One process per
   * check: V8 keeps a compiled script in memory, and a second compile of the same source there
   * would never consult its cache.
   */
  function refused(script: string, cache: string, flags: string[] = []): boolean {
    const r = spawnSync(
      process.execPath,
      [
        ...flags,
        '--input-type=commonjs',
        '-e',
        `
      const { compile, readCache } = require(${JSON.stringify(path.join(BUNDLE, 'cached-script.cjs'))});
      const data = readCache(${JSON.stringify(cache)});
      if (data === undefined) throw new Error('the cache does not match its checksum');
      process.stdout.write(String(compile(${JSON.stringify(script)}, data).cachedDataRejected));
    `,
      ],
      { encoding: 'utf8' },
    );
    assert.match(r.stdout, /^(true|false)$/, r.stderr);
    return r.stdout === 'true';
  }

  it('nqueens-islands.cjs: the two caches it names are there and V8 takes them for its script', () => {
    const { script, caches } = loaderFiles('nqueens-islands.cjs');
    assert.equal(caches.length, 2);
    for (const cache of caches) assert.equal(refused(script, cache), false, cache);
  });

  it('under other V8 flags V8 refuses the caches, and the commands work the same without them', () => {
    const { script, caches } = loaderFiles('nqueens-islands.cjs');
    for (const cache of caches) assert.equal(refused(script, cache, ['--no-opt']), true, cache);
    for (const args of [
      ['verify', '1', '5', '8', '6', '3', '7', '2', '4'],
      ['solve', '-n', '12', '--islands', '2', '--migration', 'sync', '--seed', '5', '--json', '--quiet'],
    ]) {
      const withCache = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
      const without = spawnSync(process.execPath, ['--no-opt', CLI, ...args], { encoding: 'utf8' });
      assert.equal(withCache.status, 0, withCache.stderr);
      const comparable = (stdout: string) =>
        stdout.replace(/"(seconds|startupSeconds|stopLatencyMs|foundAt|startedAt|stoppedAt|time)":[0-9.e-]+/g, '"$1":0');
      assert.deepEqual([without.status, comparable(without.stdout)], [withCache.status, comparable(withCache.stdout)]);
    }
  });

  it('a cache with flipped bytes is never handed to V8: the commands work the same without it (no crash)', () => {
    // A copy of the bundle as dist/flipped-*/dist/bundle (node_modules resolve the same, the workers are the copy's), every cache damaged mid-file.
    const top = mkdtempSync(path.join(BUNDLE, '..', 'flipped-'));
    const copy = path.join(top, 'dist', 'bundle');
    try {
      cpSync(BUNDLE, copy, { recursive: true });
      cpSync(path.join(BUNDLE, '..', 'kernel'), path.join(top, 'dist', 'kernel'), { recursive: true });
      const caches = readdirSync(copy).filter((f) => f.endsWith('.cache'));
      assert.equal(caches.length, 2);
      for (const cache of caches) {
        const bytes = readFileSync(path.join(copy, cache));
        for (let i = bytes.length >> 2; i < bytes.length; i += 997) bytes[i] ^= 0x5a;
        writeFileSync(path.join(copy, cache), bytes);
      }
      const bin = path.join(copy, 'nqueens-islands.cjs');
      for (const [args, status] of [
        [['verify', '1', '5', '8', '6', '3', '7', '2', '4'], 0],
        [['solve', '-n', '12', '--islands', '2', '--seed', '5', '--json', '--quiet'], 0],
      ] as const) {
        const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
        assert.equal(r.status, status, r.stderr);
        assert.equal(r.signal, null);
      }
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});
